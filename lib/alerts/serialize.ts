import type { alerts, alertTriggers } from "@/db/schema";
import type { AlertObject, AlertTriggerObject } from "./schema";
import type { AlertStatus, AlertType } from "./statuses";

export type AlertRow = typeof alerts.$inferSelect;
export type AlertTriggerRow = typeof alertTriggers.$inferSelect;

/** The alert as the API shows it. */
export function serializeAlert(row: AlertRow, livemode: boolean): AlertObject {
  return {
    object: "alert",
    id: row.id,
    // The columns are text; only ALERT_TYPES and ALERT_STATUSES are ever written.
    type: row.type as AlertType,
    title: row.title,
    status: row.status as AlertStatus,
    customer: row.customerId,
    meter: row.meterId,
    threshold: row.threshold,
    threshold_atom: row.thresholdAtom,
    below_atom: row.belowAtom,
    currency: row.currency,
    livemode,
    created: row.created.toISOString(),
    archived_at: row.archivedAt?.toISOString() ?? null,
  };
}

/** The alert's threshold whatever its type. */
export function thresholdOf(alert: AlertRow): number {
  return alert.threshold ?? alert.thresholdAtom ?? alert.belowAtom ?? 0;
}

/** A trigger as the API and the `alert.*` events show it. */
export function serializeAlertTrigger(row: AlertTriggerRow, alert: AlertRow, livemode: boolean): AlertTriggerObject {
  return {
    object: "alert_trigger",
    id: row.id,
    alert: row.alertId,
    alert_type: alert.type as AlertType,
    customer: row.customerId,
    meter: alert.meterId,
    currency: alert.currency,
    value: row.value,
    threshold: thresholdOf(alert),
    period_start: row.periodStart.toISOString(),
    period_end: row.periodEnd.toISOString(),
    resolved_at: row.resolvedAt?.toISOString() ?? null,
    livemode,
    created: row.created.toISOString(),
  };
}
