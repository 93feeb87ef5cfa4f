"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { dashboardCall } from "@/components/api-client";
import { Time } from "@/components/events/bits";
import { useBrowserLocale } from "@/components/objects/api-form";
import { Card, ErrorBox, Loading, StatusBadge, Table } from "@/components/ui";
import { alertCondition, alertQueryKeys, alertsHref } from "./format";

/**
 * A customer's alerts and their state: each active alert that applies to the customer (its own
 * and those of every customer), "triggered" when it triggered in the customer's current period
 * (an unresolved trigger), else "watching"; then the customer's recent triggers.
 */
export function CustomerAlerts({ accountId, customerId }: { accountId: string; customerId: string }) {
  const locale = useBrowserLocale();
  const alerts = useQuery({
    queryKey: alertQueryKeys.alerts(accountId),
    queryFn: () => dashboardCall("listAlerts", { path: { account_id: accountId }, query: { limit: 100, status: "active" } }),
  });
  const triggers = useQuery({
    queryKey: alertQueryKeys.triggers(accountId, customerId),
    queryFn: () => dashboardCall("listAlertTriggers", { path: { account_id: accountId }, query: { customer: customerId, limit: 20 } }),
  });
  if (alerts.isSuccess && triggers.isSuccess && alerts.data.items.length === 0 && triggers.data.items.length === 0) return null;
  const failed = alerts.error ?? triggers.error;
  const applying = (alerts.data?.items ?? []).filter((alert) => alert.status === "active" && (alert.customer === null || alert.customer === customerId));
  const open = new Map((triggers.data?.items ?? []).filter((trigger) => trigger.resolved_at === null).map((trigger) => [trigger.alert, trigger]));
  return (
    <Card
      title="Alerts"
      actions={
        <Link href={alertsHref(accountId)} className="text-sm text-indigo-700 underline hover:text-indigo-900">
          All alerts
        </Link>
      }
    >
      {failed ? (
        <ErrorBox error={failed} />
      ) : alerts.isPending || triggers.isPending ? (
        <Loading what="Loading alerts" />
      ) : (
        <>
          {applying.length === 0 ? (
            <p className="text-sm text-slate-600">No active alert applies to this customer.</p>
          ) : (
            <Table label="Customer alerts" head={["Alert", "Triggers when", "State this period"]}>
              {applying.map((alert) => {
                const trigger = open.get(alert.id);
                return (
                  <tr key={alert.id} className="align-top">
                    <td className="px-2 py-2">
                      {alert.title ?? alert.type.replace("_", " ")}
                      <span className="block break-all font-mono text-xs text-slate-500">{alert.id}</span>
                    </td>
                    <td className="px-2 py-2">{alertCondition(alert, undefined, locale)}</td>
                    <td className="px-2 py-2">
                      {trigger ? (
                        <>
                          <StatusBadge status="triggered" label={`triggered at ${trigger.value.toLocaleString("en")}`} /> <Time iso={trigger.created} />
                        </>
                      ) : (
                        <StatusBadge status="active" label="watching" />
                      )}
                    </td>
                  </tr>
                );
              })}
            </Table>
          )}
          {(triggers.data?.items.length ?? 0) > 0 && (
            <Table label="Alert triggers" head={["Triggered", "Alert", "Value", "Period", "Resolved"]}>
              {triggers.data!.items.map((trigger) => (
                <tr key={trigger.id} className="align-top">
                  <td className="whitespace-nowrap px-2 py-2">
                    <Time iso={trigger.created} />
                  </td>
                  <td className="px-2 py-2 font-mono text-xs">{trigger.alert}</td>
                  <td className="px-2 py-2 tabular-nums">
                    {trigger.value.toLocaleString("en")} / {trigger.threshold.toLocaleString("en")}
                  </td>
                  <td className="whitespace-nowrap px-2 py-2">
                    <Time iso={trigger.period_start} /> – <Time iso={trigger.period_end} />
                  </td>
                  <td className="whitespace-nowrap px-2 py-2">{trigger.resolved_at ? <Time iso={trigger.resolved_at} /> : "—"}</td>
                </tr>
              ))}
            </Table>
          )}
        </>
      )}
    </Card>
  );
}
