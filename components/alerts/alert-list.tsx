"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { dashboardCall } from "@/components/api-client";
import { Time } from "@/components/events/bits";
import { ApiAction } from "@/components/objects/confirm-action";
import { useBrowserLocale } from "@/components/objects/api-form";
import { meterHref, meterQueryKeys } from "@/components/meters/format";
import { ErrorBox, Loading, StatusBadge, Table } from "@/components/ui";
import { operationLine } from "@/lib/operation-paths";
import { alertCondition, alertQueryKeys } from "./format";

const linkClass = "text-indigo-700 underline hover:text-indigo-900";

// An account has at most 1,000 active alerts; the page shows the newest 100 (the API's largest page).
const ALERTS_LIMIT = 100;

/** The account's alerts, newest first, each with its condition, scope and an Archive button. */
export function AlertList({ accountId }: { accountId: string }) {
  const locale = useBrowserLocale();
  const query = useQuery({
    queryKey: alertQueryKeys.alerts(accountId),
    queryFn: () => dashboardCall("listAlerts", { path: { account_id: accountId }, query: { limit: ALERTS_LIMIT } }),
  });
  const meters = useQuery({
    queryKey: meterQueryKeys.meters(accountId),
    queryFn: () => dashboardCall("listMeters", { path: { account_id: accountId }, query: { limit: 100 } }),
  });
  if (query.isPending) return <Loading what="Loading alerts" />;
  if (query.isError) return <ErrorBox error={query.error} />;
  const alerts = query.data.items;
  const meterName = new Map((meters.data?.items ?? []).map((meter) => [meter.id, meter.display_name]));
  if (alerts.length === 0) {
    return (
      <p className="rounded border border-slate-200 bg-white p-3 text-sm text-slate-700">
        No alerts yet. Create one above or with {operationLine("createAlertForTokenAccount")}: it sends <code>alert.triggered</code> once per customer
        and billing period.
      </p>
    );
  }
  return (
    <>
      <Table label="Alerts" head={["Alert", "Triggers when", "Customer", "Status", "Created", ""]}>
        {alerts.map((alert) => (
          <tr key={alert.id} className="align-top">
            <td className="px-2 py-2">
              <span className="font-medium">{alert.title ?? alert.type.replace("_", " ")}</span>
              <span className="block break-all font-mono text-xs text-slate-500">{alert.id}</span>
            </td>
            <td className="px-2 py-2">
              {alertCondition(alert, alert.meter ? meterName.get(alert.meter) : undefined, locale)}
              {alert.meter && (
                <Link href={meterHref(accountId, alert.meter)} className={`block font-mono text-xs ${linkClass}`}>
                  {alert.meter}
                </Link>
              )}
            </td>
            <td className="px-2 py-2">
              {alert.customer ? (
                <Link href={`/accounts/${accountId}/customers/${encodeURIComponent(alert.customer)}`} className={`font-mono text-xs ${linkClass}`}>
                  {alert.customer}
                </Link>
              ) : (
                "Every customer"
              )}
            </td>
            <td className="px-2 py-2">
              <StatusBadge status={alert.status} />
            </td>
            <td className="whitespace-nowrap px-2 py-2">
              <Time iso={alert.created} />
            </td>
            <td className="px-2 py-2">
              {alert.status === "active" && (
                <ApiAction
                  label="Archive"
                  send={() => dashboardCall("archiveAlert", { path: { account_id: accountId, alert_id: alert.id } })}
                  invalidate={[alertQueryKeys.alerts(accountId)]}
                  confirm={{ title: "Archive this alert?", body: "It is never evaluated again; archiving cannot be undone.", label: "Archive alert" }}
                />
              )}
            </td>
          </tr>
        ))}
      </Table>
      {query.data.has_more && <p className="mt-2 text-sm text-slate-600">Showing the newest {ALERTS_LIMIT} alerts.</p>}
    </>
  );
}
