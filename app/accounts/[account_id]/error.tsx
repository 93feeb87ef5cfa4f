"use client";

import { Button } from "@/components/ui";

/** An unexpected failure while rendering a dashboard page: said plainly, inside the frame, with a retry. */
export default function AccountError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="rounded-lg border border-red-200 bg-white p-4">
      <h1 className="text-xl font-semibold">Something went wrong</h1>
      <p className="mt-2 text-sm text-slate-700">This page could not be shown. Try again; if it keeps failing, quote the reference below to support.</p>
      {error.digest && <p className="mt-1 font-mono text-xs text-slate-500">Reference: {error.digest}</p>}
      <Button className="mt-3" onClick={reset}>
        Try again
      </Button>
    </div>
  );
}
