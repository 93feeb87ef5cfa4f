"use client";

import { useQueries, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { dashboardCall } from "@/components/api-client";
import { Time } from "@/components/events/bits";
import { Card, ErrorBox, Loading, Table } from "@/components/ui";
import { formatUsage, meterHref, meterQueryKeys } from "./format";

// As the Meters page: an account's meters fit in the API's largest page.
const METERS_LIMIT = 100;

/**
 * A customer's usage of the open period, one row per active meter they have usage for (a value
 * other than 0 or none). One usage read per active meter: an account has a handful of meters.
 */
export function CustomerUsage({ accountId, customerId }: { accountId: string; customerId: string }) {
  const meters = useQuery({
    queryKey: meterQueryKeys.meters(accountId),
    queryFn: () => dashboardCall("listMeters", { path: { account_id: accountId }, query: { limit: METERS_LIMIT } }),
  });
  const active = (meters.data?.items ?? []).filter((meter) => meter.status === "active");
  const usages = useQueries({
    queries: active.map((meter) => ({
      queryKey: meterQueryKeys.usage(accountId, customerId, meter.id),
      queryFn: () =>
        dashboardCall("getCustomerUsage", { path: { account_id: accountId, customer_id: customerId }, query: { meter: meter.id } }),
    })),
  });
  // No meters at all: nothing to say on a customer page of an account that does not bill usage.
  if (meters.isSuccess && active.length === 0) return null;
  const failed = meters.error ?? usages.find((usage) => usage.error)?.error;
  const pending = meters.isPending || usages.some((usage) => usage.isPending);
  const rows = active.flatMap((meter, i) => {
    const usage = usages[i]?.data;
    return usage && usage.value !== null && usage.value !== 0 ? [{ meter, usage }] : [];
  });
  return (
    <Card title="Current usage">
      {failed ? (
        <ErrorBox error={failed} />
      ) : pending ? (
        <Loading what="Loading usage" />
      ) : rows.length === 0 ? (
        <p className="text-sm text-slate-600">No usage in the current period.</p>
      ) : (
        <Table label="Current usage" head={["Meter", "Usage", "Aggregation", "Period"]}>
          {rows.map(({ meter, usage }) => (
            <tr key={meter.id} className="align-top">
              <td className="px-2 py-2">
                <Link href={meterHref(accountId, meter.id)} className="text-indigo-700 underline hover:text-indigo-900">
                  {meter.display_name}
                </Link>
              </td>
              <td className="px-2 py-2 font-semibold tabular-nums">{formatUsage(usage.value)}</td>
              <td className="px-2 py-2">{usage.aggregation}</td>
              <td className="whitespace-nowrap px-2 py-2">
                <Time iso={usage.period_start} /> – <Time iso={usage.period_end} />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </Card>
  );
}
