"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Time } from "@/components/events/bits";
import { dashboardCall } from "@/components/api-client";
import { ErrorBox, Loading, StatusBadge, Table } from "@/components/ui";
import { operationLine } from "@/lib/operation-paths";
import { meterHref, meterQueryKeys } from "./format";

const linkClass = "text-indigo-700 underline hover:text-indigo-900";

// An account has a handful of meters (one per billable metric): the API's largest page shows them all.
const METERS_LIMIT = 100;

/** The account's meters, active and inactive, newest first. */
export function MeterList({ accountId }: { accountId: string }) {
  const query = useQuery({
    queryKey: meterQueryKeys.meters(accountId),
    queryFn: () => dashboardCall("listMeters", { path: { account_id: accountId }, query: { limit: METERS_LIMIT } }),
  });
  if (query.isPending) return <Loading what="Loading meters" />;
  if (query.isError) return <ErrorBox error={query.error} />;
  const meters = query.data.items;
  if (meters.length === 0) {
    return (
      <p className="rounded border border-slate-200 bg-white p-3 text-sm text-slate-700">
        No meters yet. Create one with {operationLine("createMeterForTokenAccount")} from your server, then send usage with{" "}
        {operationLine("createUsageEventForTokenAccount")}.
      </p>
    );
  }
  return (
    <>
      <Table label="Meters" head={["Meter", "Event name", "Aggregation", "Status", "Created"]}>
        {meters.map((meter) => (
          <tr key={meter.id} className="align-top">
            <td className="px-2 py-2">
              <Link href={meterHref(accountId, meter.id)} className={`font-medium ${linkClass}`}>
                {meter.display_name}
              </Link>
              <span className="block break-all font-mono text-xs text-slate-500">{meter.id}</span>
            </td>
            <td className="px-2 py-2 font-mono text-xs">{meter.event_name}</td>
            <td className="px-2 py-2">
              {meter.aggregation}
              {meter.aggregation !== "count" && <span className="block font-mono text-xs text-slate-500">{meter.value_key}</span>}
            </td>
            <td className="px-2 py-2">
              <StatusBadge status={meter.status} />
            </td>
            <td className="whitespace-nowrap px-2 py-2">
              <Time iso={meter.created} />
            </td>
          </tr>
        ))}
      </Table>
      {query.data.has_more && <p className="mt-2 text-sm text-slate-600">Showing the newest {METERS_LIMIT} meters.</p>}
    </>
  );
}
