import { formatUsage } from "./format";

export type UsageBucket = { start: string; end: string; value: number | null };

/**
 * Per-day usage as bars (plain divs, no chart library): each bar's height is its share of the
 * largest day; the value is in the bar's label and title. A day without events has no bar.
 */
export function UsageChart({ buckets, label }: { buckets: UsageBucket[]; label: string }) {
  const max = Math.max(1, ...buckets.map((bucket) => bucket.value ?? 0));
  return (
    <figure>
      <ol aria-label={label} className="flex h-40 items-end gap-px border-b border-slate-300">
        {buckets.map((bucket) => {
          const day = bucket.start.slice(0, 10);
          const text = `${day}: ${formatUsage(bucket.value)}`;
          const height = bucket.value ? Math.max(2, Math.round((bucket.value / max) * 100)) : 0;
          return (
            <li key={bucket.start} aria-label={text} title={text} className="flex h-full flex-1 items-end">
              <div className="w-full rounded-t bg-indigo-500" style={{ height: `${height}%` }} />
            </li>
          );
        })}
      </ol>
      <figcaption className="mt-1 flex justify-between text-xs text-slate-500">
        <span>{buckets[0]?.start.slice(0, 10)}</span>
        <span>{buckets.at(-1)?.start.slice(0, 10)}</span>
      </figcaption>
    </figure>
  );
}
