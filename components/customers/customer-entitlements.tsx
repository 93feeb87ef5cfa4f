"use client";

import { useQuery } from "@tanstack/react-query";
import { dashboardCall } from "@/components/api-client";
import { ObjectLink } from "@/components/objects/links";
import { Card, ErrorBox, Loading } from "@/components/ui";

/** The customer's active entitlements, each with the subscription it comes from and the event that granted it. */
export function CustomerEntitlements({ accountId, customerId }: { accountId: string; customerId: string }) {
  const query = useQuery({
    queryKey: ["customers", accountId, "one", customerId, "entitlements"],
    queryFn: () => dashboardCall("getCustomerEntitlements", { path: { account_id: accountId, customer_id: customerId } }),
  });
  return (
    <Card title="Entitlements">
      {query.isPending ? (
        <Loading what="Loading the entitlements" />
      ) : query.isError ? (
        <ErrorBox error={query.error} />
      ) : query.data.items.length === 0 ? (
        <p className="text-sm text-slate-600">No active entitlements.</p>
      ) : (
        <ul data-testid="entitlements" className="divide-y divide-slate-100 text-sm">
          {query.data.items.map((item) => (
            <li key={item.feature} className="flex flex-wrap items-center gap-x-4 gap-y-1 py-2">
              <code className="font-mono text-xs font-semibold">{item.lookup_key}</code>
              <span>
                from <ObjectLink accountId={accountId} id={item.source_subscription} />
              </span>
              <span>
                granted by{" "}
                {item.granted_by_event ? (
                  <ObjectLink accountId={accountId} id={item.granted_by_event} />
                ) : (
                  <span className="text-slate-600">— (not announced yet)</span>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
