"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { dashboardCall } from "@/components/api-client";

/**
 * The overview's notice of endpoints the service disabled after their deliveries failed for days
 * (nothing when there are none). Each links to its endpoint page, which offers to enable it and
 * replay what it missed.
 */
export function DisabledEndpointsNotice({ accountId }: { accountId: string }) {
  const query = useQuery({
    queryKey: ["webhook-endpoints", accountId, "disabled"] as const,
    queryFn: () => dashboardCall("listWebhookEndpoints", { path: { account_id: accountId }, query: { limit: 100 } }),
    refetchInterval: 60_000,
  });
  const disabled = query.data?.items.filter((endpoint) => endpoint.disabled_reason) ?? [];
  if (disabled.length === 0) return null;
  return (
    <div role="alert" className="mb-4 rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
      <p className="font-medium">
        {disabled.length === 1 ? "A webhook endpoint was" : `${disabled.length} webhook endpoints were`} disabled after failing
        for days.
      </p>
      <ul className="mt-1 list-disc pl-5">
        {disabled.map((endpoint) => (
          <li key={endpoint.id}>
            <Link
              href={`/accounts/${accountId}/webhooks/${encodeURIComponent(endpoint.id)}`}
              className="break-all text-indigo-700 underline-offset-2 hover:underline"
            >
              {endpoint.url}
            </Link>{" "}
            — {endpoint.disabled_reason}
          </li>
        ))}
      </ul>
    </div>
  );
}
