"use client";

import { Button } from "@/components/ui";

/** Previous/next for an offset-paginated list envelope. */
export function Pager({
  offset,
  limit,
  total,
  hasMore,
  onChange,
  label,
}: {
  offset: number;
  limit: number;
  total: number;
  hasMore: boolean;
  onChange: (offset: number) => void;
  label: string;
}) {
  if (offset === 0 && !hasMore) return null;
  const last = Math.min(offset + limit, total);
  return (
    <nav aria-label={label} className="mt-3 flex flex-wrap items-center gap-2 text-sm">
      <Button variant="secondary" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>
        Previous
      </Button>
      <Button variant="secondary" disabled={!hasMore} onClick={() => onChange(offset + limit)}>
        Next
      </Button>
      <span className="text-slate-500">
        {total === 0 ? 0 : offset + 1}–{last} of {total}
      </span>
    </nav>
  );
}
