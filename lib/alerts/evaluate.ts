import { and, asc, eq, isNull, lte, min, or, sql } from "drizzle-orm";
import { getDb, type Executor } from "@/db/client";
import { accounts, alertMarks, alerts, alertTriggers } from "@/db/schema";
import { accountNow, accountsWhere, DUE_BATCH } from "@/lib/clock/due";
import type { TimeTransition } from "@/lib/clock/transitions";
import type { ServiceContext } from "@/lib/context";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { log, safeError } from "@/lib/log";
import { MINUTE_MS } from "@/lib/time";
import { openPeriod } from "@/lib/usage/read";
import { creditBalanceAtom, upcomingSpendAtom, usageValue } from "./amounts";
import { serializeAlertTrigger, thresholdOf, type AlertRow } from "./serialize";

/*
 * The alert evaluator (docs/usage-billing.md, "Alerts"), a time-driven transition run by the
 * clock's drivers (the embedded ticker every CLOCK_TICK_MS, the Inngest cron, a test clock's
 * advance). Two kinds of due items in an account:
 *
 * - a mark (`alert_marks`, lib/alert-marks): a customer whose usage or balance changed. Every
 *   active alert that applies to the customer is evaluated in the customer's current period
 *   (openPeriod: the live subscription's period, else the UTC calendar month on the account's
 *   clock); one that crossed inserts its trigger row, unique per (alert, customer, period), with
 *   `alert.triggered` in the same transaction: once, however many processes evaluate at once. The
 *   mark is then deleted unless its `seq` moved meanwhile (a change that came during the
 *   evaluation keeps it due).
 * - an unresolved trigger whose period ended: `alert.resolved`, once (the update's condition).
 */

/** An evaluation that failed (an outage, a bug) leaves the mark due again this much later. */
const RETRY_AFTER_MS = MINUTE_MS;

function crossed(alert: AlertRow, value: number): boolean {
  if (alert.type === "credit_balance") return value < (alert.belowAtom ?? 0);
  return value >= thresholdOf(alert);
}

async function valueOf(ctx: ServiceContext, alert: AlertRow, customerId: string, period: { start: Date; end: Date }): Promise<number> {
  const db = await getDb();
  switch (alert.type) {
    case "usage_threshold":
      return usageValue(ctx.accountId, alert.meterId!, customerId, period);
    case "spend_threshold":
      return upcomingSpendAtom(ctx, customerId, alert.currency!);
    default:
      return creditBalanceAtom(ctx, db, customerId, alert.currency!);
  }
}

/** Evaluates every active alert of the customer; answers how many triggered. */
export async function evaluateCustomerAlerts(ctx: ServiceContext, customerId: string): Promise<number> {
  const db = await getDb();
  const active = await db
    .select()
    .from(alerts)
    .where(and(eq(alerts.accountId, ctx.accountId), eq(alerts.status, "active"), or(eq(alerts.customerId, customerId), isNull(alerts.customerId))))
    // Oldest first: an alert made after a change is evaluated after the alerts that change concerns.
    .orderBy(asc(alerts.created), asc(alerts.id));
  if (active.length === 0) return 0;
  const now = ctx.now();
  const period = await openPeriod(ctx.accountId, customerId, now);
  const done = new Set(
    (
      await db
        .select({ alertId: alertTriggers.alertId })
        .from(alertTriggers)
        .where(and(eq(alertTriggers.accountId, ctx.accountId), eq(alertTriggers.customerId, customerId), eq(alertTriggers.periodStart, period.start)))
    ).map((row) => row.alertId),
  );
  let triggered = 0;
  // Alerts of one meter (or one currency) share their value: each is read once per evaluation.
  const values = new Map<string, Promise<number>>();
  for (const alert of active) {
    if (done.has(alert.id)) continue;
    const key = `${alert.type}:${alert.meterId ?? alert.currency}`;
    if (!values.has(key)) values.set(key, valueOf(ctx, alert, customerId, period));
    const value = await values.get(key)!;
    if (!crossed(alert, value)) continue;
    const fired = await withChangeTransaction(async (tx) => {
      const [row] = await tx
        .insert(alertTriggers)
        .values({ id: newId("alertTrigger"), accountId: ctx.accountId, alertId: alert.id, customerId, periodStart: period.start, periodEnd: period.end, value, created: now })
        .onConflictDoNothing()
        .returning();
      if (!row) return false;
      await emitEvent(tx, ctx, { type: "alert.triggered", aggregateId: row.id, data: serializeAlertTrigger(row, alert, ctx.livemode), previousData: null });
      return true;
    });
    if (fired) triggered++;
  }
  return triggered;
}

/** Resolves one trigger whose period ended: `alert.resolved`, once. */
async function resolveTrigger(ctx: ServiceContext, id: string): Promise<boolean> {
  return withChangeTransaction(async (tx) => {
    const [before] = await tx.select().from(alertTriggers).where(and(eq(alertTriggers.id, id), isNull(alertTriggers.resolvedAt))).for("update");
    if (!before || before.periodEnd.getTime() > ctx.now().getTime()) return false;
    const [after] = await tx.update(alertTriggers).set({ resolvedAt: ctx.now() }).where(eq(alertTriggers.id, id)).returning();
    const [alert] = await tx.select().from(alerts).where(eq(alerts.id, before.alertId));
    await emitEvent(tx, ctx, {
      type: "alert.resolved",
      aggregateId: id,
      data: serializeAlertTrigger(after!, alert!, ctx.livemode),
      previousData: serializeAlertTrigger(before, alert!, ctx.livemode),
    });
    return true;
  });
}

/** Evaluates one marked customer; the mark goes unless a change came meanwhile. */
async function evaluateMark(ctx: ServiceContext, mark: { customerId: string; seq: number }): Promise<void> {
  const db = await getDb();
  const key = and(eq(alertMarks.accountId, ctx.accountId), eq(alertMarks.customerId, mark.customerId));
  try {
    await evaluateCustomerAlerts(ctx, mark.customerId);
  } catch (error) {
    log().warn({ err: safeError(error), customer: mark.customerId }, "alerts not evaluated; evaluated again later");
    await db
      .update(alertMarks)
      .set({ markedAt: new Date(ctx.now().getTime() + RETRY_AFTER_MS) })
      .where(and(key, eq(alertMarks.seq, mark.seq)));
    return;
  }
  await db.delete(alertMarks).where(and(key, eq(alertMarks.seq, mark.seq)));
}

const unresolved = isNull(alertTriggers.resolvedAt);

export const alertEvaluation: TimeTransition = {
  name: "alert_evaluation",
  async nextDue(executor: Executor, accountId: string) {
    const [[mark], [trigger]] = await Promise.all([
      executor
        .select({ at: min(alertMarks.markedAt).mapWith((value: string | Date) => new Date(value)) })
        .from(alertMarks)
        .where(eq(alertMarks.accountId, accountId)),
      executor
        .select({ at: min(alertTriggers.periodEnd).mapWith((value: string | Date) => new Date(value)) })
        .from(alertTriggers)
        .where(and(eq(alertTriggers.accountId, accountId), unresolved)),
    ]);
    const times = [mark?.at, trigger?.at].filter((at): at is Date => at instanceof Date && !Number.isNaN(at.getTime()));
    return times.length === 0 ? null : new Date(Math.min(...times.map((at) => at.getTime())));
  },
  async findDue(executor, ctx) {
    const now = ctx.now();
    const [ended, marks] = await Promise.all([
      executor
        .select({ id: alertTriggers.id })
        .from(alertTriggers)
        .where(and(eq(alertTriggers.accountId, ctx.accountId), unresolved, lte(alertTriggers.periodEnd, now)))
        .orderBy(asc(alertTriggers.periodEnd), asc(alertTriggers.id))
        .limit(DUE_BATCH),
      executor
        .select({ customerId: alertMarks.customerId, seq: alertMarks.seq })
        .from(alertMarks)
        .where(and(eq(alertMarks.accountId, ctx.accountId), lte(alertMarks.markedAt, now)))
        .orderBy(asc(alertMarks.markedAt), asc(alertMarks.customerId))
        .limit(DUE_BATCH),
    ]);
    return async () => {
      let ran = 0;
      // Resolutions first: a usage event of the new period then triggers in it.
      for (const { id } of ended) if (await resolveTrigger(ctx, id)) ran++;
      for (const mark of marks) {
        await evaluateMark(ctx, mark);
        ran++;
      }
      return ran;
    };
  },
  async dueAccounts(executor, realNow) {
    return accountsWhere(
      executor,
      executor
        .select({ id: sql`1` })
        .from(alertMarks)
        .where(and(eq(alertMarks.accountId, accounts.id), lte(alertMarks.markedAt, accountNow(realNow))))
        .unionAll(
          executor
            .select({ id: sql`1` })
            .from(alertTriggers)
            .where(and(eq(alertTriggers.accountId, accounts.id), unresolved, lte(alertTriggers.periodEnd, accountNow(realNow)))),
        ),
    );
  },
};
