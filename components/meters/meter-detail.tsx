"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { DetailItem, Time } from "@/components/events/bits";
import { dashboardCall } from "@/components/api-client";
import { CustomerName } from "@/components/objects/names";
import { useCustomerOptions } from "@/components/objects/pickers";
import { BackLink, detailFallback, useApiObject } from "@/components/ui/detail";
import { Card, CopyButton, ErrorBox, Field, inputClass, Loading, StatusBadge, Table } from "@/components/ui";
import type { Meter } from "@/components/api-types";
import { formatUsage, meterQueryKeys, metersHref } from "./format";
import { UsageChart } from "./usage-chart";

const LATEST_EVENTS = 20;

/** One meter: its fields, and for a picked customer the last 30 days by day and the latest events. */
export function MeterDetail({ accountId, meterId }: { accountId: string; meterId: string }) {
  const query = useApiObject(meterQueryKeys.meter(accountId, meterId), () =>
    dashboardCall("getMeter", { path: { account_id: accountId, meter_id: meterId } }),
  );
  const back = <BackLink href={metersHref(accountId)}>Back to meters</BackLink>;
  const fallback = detailFallback(query, {
    noun: "meter",
    id: meterId,
    back,
    notFoundHint: "It may belong to the other (live or sandbox) account.",
  });
  if (fallback || !query.data) return fallback;
  const meter = query.data;
  return (
    <>
      <div className="mb-2">{back}</div>
      <div className="mb-4 flex flex-wrap items-center gap-2">
        <h1 className="min-w-0 break-all text-xl font-semibold">{meter.display_name}</h1>
        <StatusBadge status={meter.status} />
      </div>
      <div className="space-y-4">
        <Card title="Meter">
          <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-2 lg:grid-cols-3">
            <DetailItem label="Id">
              <span className="flex flex-wrap items-center gap-2">
                <code className="break-all font-mono text-xs">{meter.id}</code>
                <CopyButton value={meter.id} label="Copy id" />
              </span>
            </DetailItem>
            <DetailItem label="Event name">
              <code className="break-all font-mono text-xs">{meter.event_name}</code>
            </DetailItem>
            <DetailItem label="Aggregation">{meter.aggregation}</DetailItem>
            <DetailItem label="Value key">
              <code className="break-all font-mono text-xs">{meter.value_key}</code>
            </DetailItem>
            <DetailItem label="Created">
              <Time iso={meter.created} />
            </DetailItem>
            <DetailItem label="Updated">
              <Time iso={meter.updated} />
            </DetailItem>
          </dl>
        </Card>
        <CustomerUsageOfMeter accountId={accountId} meter={meter} />
      </div>
    </>
  );
}

/** The customer picker, then that customer's chart and latest events. */
function CustomerUsageOfMeter({ accountId, meter }: { accountId: string; meter: Meter }) {
  const customers = useCustomerOptions(accountId);
  const [picked, setPicked] = useState<string | null>(null);
  const customer = picked ?? customers.options[0]?.value;
  return (
    <Card title="Usage by customer">
      {customers.isPending ? (
        <Loading what="Loading customers" />
      ) : customers.error ? (
        <ErrorBox error={customers.error} />
      ) : !customer ? (
        <p className="text-sm text-slate-600">No customers yet: usage is counted per customer.</p>
      ) : (
        <div className="space-y-4">
          <Field label="Customer">
            <select className={inputClass} value={customer} onChange={(event) => setPicked(event.target.value)}>
              {customers.options.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
          </Field>
          <DailyUsage accountId={accountId} meter={meter} customerId={customer} />
          <LatestEvents accountId={accountId} meter={meter} customerId={customer} />
        </div>
      )}
    </Card>
  );
}

function DailyUsage({ accountId, meter, customerId }: { accountId: string; meter: Meter; customerId: string }) {
  // No range: the API answers the last 30 days by the account's clock (a sandbox's test clock
  // included), not by this browser's, so "Today" is the account's today.
  const query = useQuery({
    queryKey: meterQueryKeys.summaries(accountId, meter.id, customerId),
    queryFn: () =>
      dashboardCall("getMeterSummaries", {
        path: { account_id: accountId, meter_id: meter.id },
        query: { customer: customerId, group_by: "day" },
      }),
  });
  if (query.isPending) return <Loading what="Loading usage" />;
  if (query.isError) return <ErrorBox error={query.error} />;
  const buckets = query.data.items;
  const today = buckets.at(-1)?.value ?? null;
  return (
    <section aria-label="Last 30 days">
      <h3 className="mb-2 text-sm font-medium text-slate-700">Last 30 days, per UTC day ({meter.aggregation})</h3>
      <p className="mb-2 text-sm">
        Today: <span data-testid="usage-today" className="font-semibold tabular-nums">{formatUsage(today)}</span>
      </p>
      <UsageChart buckets={buckets} label="Usage per day" />
    </section>
  );
}

function LatestEvents({ accountId, meter, customerId }: { accountId: string; meter: Meter; customerId: string }) {
  const query = useQuery({
    queryKey: meterQueryKeys.events(accountId, meter.id, customerId),
    queryFn: () =>
      dashboardCall("listMeterUsageEvents", {
        path: { account_id: accountId, meter_id: meter.id },
        query: { customer: customerId, limit: LATEST_EVENTS },
      }),
  });
  return (
    <section aria-label="Latest events">
      <h3 className="mb-2 text-sm font-medium text-slate-700">
        Latest events of <CustomerName accountId={accountId} id={customerId} />
      </h3>
      {query.isPending ? (
        <Loading what="Loading events" />
      ) : query.isError ? (
        <ErrorBox error={query.error} />
      ) : query.data.items.length === 0 ? (
        <p className="text-sm text-slate-600">No events of this meter for this customer.</p>
      ) : (
        <Table label="Latest usage events" head={["Identifier", "Timestamp", "Value", "Payload", "Received"]}>
          {query.data.items.map((event) => (
            <tr key={event.identifier} className={`align-top ${event.cancelled ? "text-slate-500 line-through" : ""}`}>
              <td className="break-all px-2 py-2 font-mono text-xs">{event.identifier}</td>
              <td className="whitespace-nowrap px-2 py-2">
                <Time iso={new Date(event.timestamp * 1000).toISOString()} />
              </td>
              <td className="px-2 py-2 tabular-nums">
                {event.value.toLocaleString("en")}
                {event.cancelled && <span className="block text-xs no-underline">cancelled</span>}
              </td>
              <td className="break-all px-2 py-2 font-mono text-xs">{JSON.stringify(event.payload)}</td>
              <td className="whitespace-nowrap px-2 py-2">
                <Time iso={event.received} />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
