"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { apiFetch, type ListEnvelope } from "@/components/api-client";
import { customerHref } from "@/components/customers/format";
import { Time } from "@/components/events/bits";
import { eventsHref } from "@/components/events/format";
import { Card, ErrorBox, Field, inputClass, Loading, StatusBadge, Table } from "@/components/ui";
import { Pager } from "@/components/ui/pager";
import { isSubscriptionStatus, SUBSCRIPTION_STATUS_OPTIONS, subscriptionHref, subscriptionQueryKeys } from "./format";
import type { Subscription, SubscriptionStatus } from "./types";

const LIMIT = 25;

function readOffset(raw: string | null): number {
  const value = Number(raw);
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}

const linkClass = "text-indigo-700 underline hover:text-indigo-900";

/**
 * The account's subscriptions, newest first as the API lists them. The page and the status filter
 * live in the URL so "Back" from a subscription (or a reload) returns to the same view.
 */
export function SubscriptionList({ accountId }: { accountId: string }) {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const offset = readOffset(searchParams.get("offset"));
  const rawStatus = searchParams.get("status");
  // An unknown status in a hand-edited URL reads as "Any" rather than a 400 from the API.
  const status: SubscriptionStatus | undefined = isSubscriptionStatus(rawStatus) ? rawStatus : undefined;

  const query = useQuery({
    queryKey: [...subscriptionQueryKeys.subscriptions(accountId), "list", { offset, status }],
    // The offset travels with the page so the range text matches the rows shown, also while a
    // previous page stands in for the one loading.
    queryFn: async () => {
      const params = new URLSearchParams({ limit: String(LIMIT), offset: String(offset) });
      if (status) params.set("status", status);
      return { ...(await apiFetch<ListEnvelope<Subscription>>(`/${accountId}/subscriptions?${params.toString()}`)), offset };
    },
    placeholderData: keepPreviousData,
  });

  function navigate(next: { offset: number; status: SubscriptionStatus | undefined }) {
    const params = new URLSearchParams();
    if (next.status) params.set("status", next.status);
    if (next.offset > 0) params.set("offset", String(next.offset));
    const qs = params.toString();
    // replace, not push: paging and filtering should not pile up in the back history.
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  }

  const filter = (
    <div className="w-48">
      <Field label="Status">
        <select
          value={status ?? ""}
          className={inputClass}
          // A new filter starts again from the first page.
          onChange={(event) =>
            navigate({ offset: 0, status: isSubscriptionStatus(event.target.value) ? event.target.value : undefined })
          }
        >
          <option value="">Any</option>
          {SUBSCRIPTION_STATUS_OPTIONS.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      </Field>
    </div>
  );

  if (query.isPending) {
    return (
      <Card actions={filter}>
        <Loading what="Loading subscriptions" />
      </Card>
    );
  }
  if (query.isError && !query.data) {
    return (
      <Card actions={filter}>
        <ErrorBox error={query.error} />
      </Card>
    );
  }
  const { items, total, has_more, offset: shownOffset } = query.data;

  return (
    <Card
      actions={
        <div className="flex w-full flex-wrap items-end justify-between gap-2">
          {filter}
          {query.isPlaceholderData && <span className="text-xs text-slate-500">Loading…</span>}
        </div>
      }
    >
      {/* A failed refresh keeps the last good page on screen and says why it may be stale. */}
      {query.isError && <ErrorBox error={query.error} />}
      {items.length === 0 ? (
        <p className="py-4 text-sm text-slate-600">
          {total > 0
            ? "No subscriptions on this page."
            : status
              ? `No ${status} subscriptions.`
              : "No subscriptions yet. Create one with POST /api/subscriptions from your server."}
        </p>
      ) : (
        <Table
          label="Subscriptions"
          head={["Subscription", "Customer", "Status", "Items", "Current period end", "Created", "Events"]}
        >
          {items.map((subscription) => (
            <tr key={subscription.id} className="align-top">
              <td className="px-2 py-2">
                <Link
                  href={subscriptionHref(accountId, subscription.id)}
                  className={`break-all font-mono text-xs font-medium ${linkClass}`}
                >
                  {subscription.id}
                </Link>
              </td>
              <td className="px-2 py-2">
                <Link href={customerHref(accountId, subscription.customer)} className={`break-all font-mono text-xs ${linkClass}`}>
                  {subscription.customer}
                </Link>
              </td>
              <td className="px-2 py-2">
                <StatusBadge status={subscription.status} />
              </td>
              <td className="px-2 py-2 tabular-nums">{subscription.items.length}</td>
              <td className="whitespace-nowrap px-2 py-2">
                <Time iso={subscription.current_period_end} />
              </td>
              <td className="whitespace-nowrap px-2 py-2">
                <Time iso={subscription.created} />
              </td>
              <td className="px-2 py-2">
                <Link
                  href={eventsHref(accountId, { aggregate_id: subscription.id })}
                  className={`whitespace-nowrap ${linkClass}`}
                  title="Show this subscription's whole event timeline"
                >
                  Timeline
                </Link>
              </td>
            </tr>
          ))}
        </Table>
      )}
      <Pager
        label="Subscription pages"
        offset={shownOffset}
        limit={LIMIT}
        total={total}
        hasMore={has_more}
        onChange={(nextOffset) => navigate({ offset: nextOffset, status })}
      />
    </Card>
  );
}
