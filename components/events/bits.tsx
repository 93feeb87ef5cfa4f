import type { ReactNode } from "react";
import { formatTime, StatusBadge } from "@/components/ui";
import type { Delivery } from "@/components/api-types";

/** One term of a definition list laid out as a grid (event fields, delivery fields, billing status). */
export function DetailItem({ label, children, wide = false }: { label: string; children: ReactNode; wide?: boolean }) {
  return (
    <div className={wide ? "sm:col-span-2 lg:col-span-3" : undefined}>
      <dt className="text-xs text-slate-500">{label}</dt>
      <dd className="min-w-0">{children}</dd>
    </div>
  );
}

/** A time people can read, with the exact instant machine-readable. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={iso}>
      {formatTime(iso)}
    </time>
  );
}

/**
 * A delivery's status in the API's words; a `failed` one with a retry scheduled says when, and
 * keeps the amber of something still moving.
 */
export function DeliveryStatusLabel({ delivery }: { delivery: Pick<Delivery, "status" | "next_retry_at"> }) {
  const retrying = delivery.status === "failed" && delivery.next_retry_at !== null;
  return (
    <span className="inline-flex flex-wrap items-baseline gap-x-1.5">
      <span data-testid="delivery-status">
        <StatusBadge status={retrying ? "retrying" : delivery.status} label={delivery.status} />
      </span>
      {retrying && (
        <span data-testid="delivery-next-retry" className="text-xs text-slate-600">
          will retry at <Time iso={delivery.next_retry_at} />
        </span>
      )}
    </span>
  );
}
