"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { Pager } from "@/components/ui/pager";
import { ErrorBox, Loading, StatusBadge, Table, Truncated, formatTime } from "@/components/ui";
import { eventsSummary } from "./format";

const LIMIT = 50;

export function EndpointList({ accountId }: { accountId: string }) {
  const [offset, setOffset] = useState(0);
  const endpoints = useQuery({
    queryKey: ["webhook-endpoints", accountId, { offset }],
    queryFn: () =>
      dashboardCall("listWebhookEndpoints", { path: { account_id: accountId }, query: { limit: LIMIT, offset } }),
    placeholderData: keepPreviousData,
  });

  if (endpoints.isPending) return <Loading what="Loading endpoints" />;
  if (endpoints.isError) return <ErrorBox error={endpoints.error} />;
  const { items, total, has_more } = endpoints.data;

  return (
    <>
      <Table label="Webhook endpoints" head={["URL", "Events", "Status", "Description", "Created"]}>
        {items.length === 0 ? (
          <tr>
            <td colSpan={5} className="px-2 py-4 text-slate-500">
              No endpoints yet. Add one above to receive events.
            </td>
          </tr>
        ) : (
          items.map((endpoint) => (
            <tr key={endpoint.id}>
              <td className="px-2 py-2">
                <Link
                  href={`/accounts/${accountId}/webhooks/${endpoint.id}`}
                  className="font-medium text-indigo-700 underline-offset-2 hover:underline"
                >
                  <Truncated text={endpoint.url} />
                </Link>
              </td>
              <td className="px-2 py-2" title={endpoint.events.join(", ")}>
                {eventsSummary(endpoint.events)}
              </td>
              <td className="px-2 py-2">
                <StatusBadge
                  status={endpoint.enabled ? "enabled" : "disabled"}
                  label={endpoint.enabled ? "Enabled" : "Disabled"}
                />
              </td>
              <td className="px-2 py-2 text-slate-600">{endpoint.description ? <Truncated text={endpoint.description} /> : "—"}</td>
              <td className="whitespace-nowrap px-2 py-2">{formatTime(endpoint.created)}</td>
            </tr>
          ))
        )}
      </Table>
      <Pager label="Endpoint pages" offset={offset} limit={LIMIT} total={total} hasMore={has_more} onChange={setOffset} />
    </>
  );
}
