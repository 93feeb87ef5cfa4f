"use client";

import { Card, CopyButton } from "@/components/ui";

/** An object exactly as the API returns it, pretty-printed, with a button that copies it. */
export function RawJson({ title = "Raw JSON", value }: { title?: string; value: unknown }) {
  const json = JSON.stringify(value, null, 2);
  return (
    <Card title={title} actions={<CopyButton value={json} label="Copy JSON" />}>
      <pre data-testid="raw-json" className="max-h-96 overflow-auto rounded bg-slate-50 p-3 font-mono text-xs">
        {json}
      </pre>
    </Card>
  );
}
