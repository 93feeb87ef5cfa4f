import { and, count, eq, inArray, isNull } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { pageOf } from "@/db/page";
import { alerts, alertTriggers, customers, meters } from "@/db/schema";
import { markCustomerForAlerts } from "@/lib/alert-marks/mark";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import type { AlertCreateInput } from "./schema";
import type { AlertRow, AlertTriggerRow } from "./serialize";
import { MAX_ACTIVE_ALERTS, type AlertStatus } from "./statuses";

/*
 * Alerts (docs/usage-billing.md, "Alerts"): the merchant's thresholds. Creating and archiving one
 * emits nothing (as Stripe's Billing Alerts); what an alert does is evaluate.ts: `alert.triggered`
 * once per customer and period, `alert.resolved` when the period ends.
 */

export async function createAlert({ ctx, input }: Verb<z.output<typeof AlertCreateInput>>): Promise<AlertRow> {
  const db = await getDb();
  if (input.type === "usage_threshold") {
    const [meter] = await db.select({ id: meters.id }).from(meters).where(and(eq(meters.accountId, ctx.accountId), eq(meters.id, input.meter)));
    if (!meter) throw validationFailed([{ field: "meter", message: `No such meter: '${input.meter}'.` }]);
  }
  if (input.customer !== undefined) {
    const [customer] = await db
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, input.customer), isNull(customers.deletedAt)));
    if (!customer) throw validationFailed([{ field: "customer", message: `No such customer: '${input.customer}'.` }]);
  }
  const [active] = await db.select({ n: count() }).from(alerts).where(and(eq(alerts.accountId, ctx.accountId), eq(alerts.status, "active")));
  if ((active?.n ?? 0) >= MAX_ACTIVE_ALERTS) {
    throw new ServiceError("conflict", `The account has ${MAX_ACTIVE_ALERTS} active alerts, the most it may have: archive one first.`);
  }
  const row = one(
    await db
      .insert(alerts)
      .values({
        id: newId("alert"),
        accountId: ctx.accountId,
        type: input.type,
        title: input.title ?? null,
        customerId: input.customer ?? null,
        meterId: input.type === "usage_threshold" ? input.meter : null,
        threshold: input.type === "usage_threshold" ? input.threshold : null,
        thresholdAtom: input.type === "spend_threshold" ? input.threshold_atom : null,
        belowAtom: input.type === "credit_balance" ? input.below_atom : null,
        currency: input.type === "usage_threshold" ? null : input.currency,
        status: "active" satisfies AlertStatus,
        created: ctx.now(),
      })
      .returning(),
  );
  // A customer's own alert is evaluated at once (its usage may be over the threshold already);
  // an alert of every customer is evaluated for each customer at their next change.
  if (row.customerId !== null) await markCustomerForAlerts(db, ctx.accountId, row.customerId, ctx.now());
  return row;
}

export async function getAlert({ ctx, input }: Verb<{ id: string }>): Promise<AlertRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(alerts)
    .where(and(eq(alerts.accountId, ctx.accountId), eq(alerts.id, input.id)));
  if (!row) throw notFound("alert", input.id);
  return row;
}

/** Newest first; alerts are few per account (at most MAX_ACTIVE_ALERTS active): the list counts exactly. */
export async function listAlerts({ ctx, input }: Verb<Page & { customer?: string; status?: AlertStatus }>): Promise<{ rows: AlertRow[] } & PageInfo> {
  const where = and(
    eq(alerts.accountId, ctx.accountId),
    input.customer ? eq(alerts.customerId, input.customer) : undefined,
    input.status ? eq(alerts.status, input.status) : undefined,
  );
  return pageOf(alerts, where, input);
}

/** Archives an alert: it is never evaluated again (its triggers still resolve at their period end). Archiving it again changes nothing. */
export async function archiveAlert({ ctx, input }: Verb<{ id: string }>): Promise<AlertRow> {
  const db = await getDb();
  const [row] = await db
    .update(alerts)
    .set({ status: "archived" satisfies AlertStatus, archivedAt: ctx.now() })
    .where(and(eq(alerts.accountId, ctx.accountId), eq(alerts.id, input.id), eq(alerts.status, "active")))
    .returning();
  return row ?? getAlert({ ctx, input });
}

/** Triggers with their alerts, newest first. */
export async function listAlertTriggers({
  ctx,
  input,
}: Verb<Page & { customer?: string; alert?: string }>): Promise<{ rows: { trigger: AlertTriggerRow; alert: AlertRow }[] } & PageInfo> {
  const where = and(
    eq(alertTriggers.accountId, ctx.accountId),
    input.customer ? eq(alertTriggers.customerId, input.customer) : undefined,
    input.alert ? eq(alertTriggers.alertId, input.alert) : undefined,
  );
  const { rows, ...info } = await pageOf(alertTriggers, where, input);
  const ids = [...new Set(rows.map((r) => r.alertId))];
  const db = await getDb();
  const byId = new Map((ids.length === 0 ? [] : await db.select().from(alerts).where(inArray(alerts.id, ids))).map((a) => [a.id, a]));
  return { rows: rows.map((trigger) => ({ trigger, alert: byId.get(trigger.alertId)! })), ...info };
}
