"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { dashboardCall } from "@/components/api-client";
import { Card, ErrorBox, Loading } from "@/components/ui";
import { DetailItem } from "@/components/events/bits";
import { queryKeys } from "@/components/events/format";

function percent(rate: number | null): string {
  if (rate === null) return "—";
  // One decimal, but never round a single failure up to "100%".
  const value = Math.floor(rate * 1000) / 10;
  return `${value}%`;
}

/** Webhook deliveries of the last day: what reached the endpoints and what did not. */
export function DeliveryHealthCard({ accountId }: { accountId: string }) {
  const query = useQuery({
    queryKey: queryKeys.deliveryHealth(accountId),
    queryFn: () => dashboardCall("getDeliveryHealth", { path: { account_id: accountId } }),
    refetchInterval: 15_000,
  });

  const title = query.data ? `Webhook deliveries (last ${query.data.window_hours} h)` : "Webhook deliveries (last 24 h)";
  return (
    <Card title={title}>
      {query.isPending ? (
        <Loading what="Loading delivery health" />
      ) : query.isError ? (
        <ErrorBox error={query.error} />
      ) : query.data.total === 0 ? (
        <p className="text-sm text-slate-600">
          No deliveries in the last {query.data.window_hours} hours.{" "}
          <Link href={`/accounts/${accountId}/webhooks`} className="text-indigo-700 underline hover:text-indigo-900">
            Add a webhook endpoint
          </Link>{" "}
          to receive events.
        </p>
      ) : (
        <dl className="grid grid-cols-2 gap-x-6 gap-y-3 text-sm sm:grid-cols-3">
          <DetailItem label="Success rate">
            <span className="text-lg font-semibold">{percent(query.data.success_rate)}</span>
          </DetailItem>
          <DetailItem label="Delivered">{query.data.delivered}</DetailItem>
          <DetailItem label="Failed">{query.data.failed}</DetailItem>
          <DetailItem label="Retrying">{query.data.retrying}</DetailItem>
          <DetailItem label="Pending">{query.data.pending}</DetailItem>
          <DetailItem label="Total">{query.data.total}</DetailItem>
        </dl>
      )}
    </Card>
  );
}
