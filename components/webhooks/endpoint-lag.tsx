"use client";

import { useQuery } from "@tanstack/react-query";
import { dashboardCall } from "@/components/api-client";
import { ErrorBox, Loading } from "@/components/ui";

/** Refreshed every 5 s: lag is a right-now figure. */
const LAG_POLL_MS = 5_000;

function formatAge(seconds: number | null): string {
  if (seconds === null) return "none waiting";
  if (seconds < 1) return "< 1 s";
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

/**
 * Whether the endpoint's deliveries keep up: the age of the oldest due delivery, attempts under
 * way, and deliveries per minute with their mean duration, so a merchant can tell a slow receiver
 * (long attempts, all slots busy) from a platform that is behind (short attempts, lag growing).
 */
export function EndpointLag({ accountId, endpointId }: { accountId: string; endpointId: string }) {
  const health = useQuery({
    queryKey: ["webhook-lag", accountId, endpointId],
    queryFn: () =>
      dashboardCall("getWebhookEndpointHealth", { path: { account_id: accountId, endpoint_id: endpointId } }),
    refetchInterval: LAG_POLL_MS,
  });
  if (health.isPending) return <Loading what="Loading delivery lag" />;
  if (health.isError) return <ErrorBox error={health.error} />;
  const { lag } = health.data;
  const peak = Math.max(1, ...lag.per_minute.map((minute) => minute.delivered + minute.failed));

  return (
    <div className="space-y-3 text-sm" data-testid="endpoint-lag">
      <dl className="grid grid-cols-3 gap-3">
        <div>
          <dt className="text-slate-500">Oldest due delivery waiting</dt>
          <dd className="text-lg font-medium">{formatAge(lag.oldest_due_seconds)}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Due now</dt>
          <dd className="text-lg font-medium">{lag.due}</dd>
        </div>
        <div>
          <dt className="text-slate-500">Attempts under way</dt>
          <dd className="text-lg font-medium">{lag.in_flight}</dd>
        </div>
      </dl>
      <table className="w-full text-left">
        <caption className="sr-only">Deliveries per minute</caption>
        <thead className="text-slate-500">
          <tr>
            <th className="font-normal">Minute</th>
            <th className="font-normal">Delivered</th>
            <th className="font-normal">Failed</th>
            <th className="font-normal">Mean duration</th>
            <th className="w-1/3" aria-hidden />
          </tr>
        </thead>
        <tbody>
          {lag.per_minute.map((minute) => (
            <tr key={minute.minute}>
              <td className="font-mono">{new Date(minute.minute).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}</td>
              <td>{minute.delivered}</td>
              <td>{minute.failed}</td>
              <td>{minute.average_duration_ms === null ? "–" : `${minute.average_duration_ms} ms`}</td>
              <td aria-hidden>
                <div
                  className="h-2 rounded bg-sky-500"
                  style={{ width: `${(100 * (minute.delivered + minute.failed)) / peak}%` }}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
