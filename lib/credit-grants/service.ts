import { markCustomerForAlerts } from "@/lib/alert-marks/mark";
import { and, asc, desc, eq, gt, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { z } from "zod";
import { getDb, type Executor } from "@/db/client";
import { pageOf } from "@/db/page";
import { creditGrantApplications, creditGrants, customers, meters } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { transitionScheduled } from "@/lib/clock/schedule";
import type { EventType } from "@/lib/events/catalogue";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { applyCredits, creditGrantOrder, type CreditApplication } from "@/lib/money";
import { one } from "@/lib/rows";
import { PRIORITY_DEFAULT, type CreditGrantCreateInput } from "./schema";
import { serializeCreditGrant, type CreditGrantApplicationRow, type CreditGrantRow } from "./serialize";
import { CREDIT_GRANT_ACTION_FROM, type CreditGrantStatus } from "./statuses";

/*
 * Credit grants (docs/billing.md, "Credit grants"): create, read, list, void; what they pay at an
 * invoice's finalization (`creditsFor`, then `recordCreditApplications` in the finalizing
 * transaction); their expiry on the account's clock (expiry.ts); what a customer has left
 * (`remainingCredit`).
 */

const ofAccount = (accountId: string, id: string) => and(eq(creditGrants.accountId, accountId), eq(creditGrants.id, id));

const may = (action: keyof typeof CREDIT_GRANT_ACTION_FROM, status: CreditGrantStatus) => (CREDIT_GRANT_ACTION_FROM[action] as readonly string[]).includes(status);

async function emitGrant(tx: ChangeTransaction, ctx: ServiceContext, type: Extract<EventType, `credit_grant.${string}`>, after: CreditGrantRow, before: CreditGrantRow | null) {
  await emitEvent(tx, ctx, {
    type,
    aggregateId: after.id,
    data: serializeCreditGrant(after, ctx.livemode),
    previousData: before === null ? null : serializeCreditGrant(before, ctx.livemode),
  });
  // The customer's credit changed: its credit_balance alerts are evaluated again (lib/alerts).
  await markCustomerForAlerts(tx, ctx.accountId, after.customerId, ctx.now());
}

/**
 * Grants `amount_atom` of `currency` to a live customer. Every meter named must be one of the
 * account's; `expires_at` must be after `effective_at` (default: now on the account's clock).
 */
export async function createCreditGrant({ ctx, input }: Verb<z.output<typeof CreditGrantCreateInput>>): Promise<CreditGrantRow> {
  const now = ctx.now();
  const effectiveAt = input.effective_at ? new Date(input.effective_at) : now;
  const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
  if (expiresAt !== null && expiresAt.getTime() <= effectiveAt.getTime()) {
    throw validationFailed([{ field: "expires_at", message: `Must be after effective_at (${effectiveAt.toISOString()}).` }]);
  }
  const meterIds = input.applies_to === "all" ? null : input.applies_to.meters;
  const created = await withChangeTransaction(async (tx) => {
    // For share: a concurrent deletion of the customer waits for the grant (or the grant sees it deleted).
    const [customer] = await tx
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, input.customer), isNull(customers.deletedAt)))
      .for("share");
    if (!customer) throw validationFailed([{ field: "customer", message: `No such customer: '${input.customer}'.` }]);
    if (meterIds !== null) {
      const found = await tx
        .select({ id: meters.id })
        .from(meters)
        .where(and(eq(meters.accountId, ctx.accountId), inArray(meters.id, meterIds)));
      const known = new Set(found.map((row) => row.id));
      const errors = meterIds.flatMap((id, index) => (known.has(id) ? [] : [{ field: `applies_to.meters.${index}`, message: `No such meter: '${id}'.` }]));
      if (errors.length > 0) throw validationFailed(errors);
    }
    const row = one(
      await tx
        .insert(creditGrants)
        .values({
          id: newId("creditGrant"),
          accountId: ctx.accountId,
          customerId: customer.id,
          name: input.name ?? null,
          category: input.category,
          currency: input.currency,
          amountAtom: input.amount_atom,
          remainingAtom: input.amount_atom,
          appliesToMeters: meterIds,
          priority: input.priority ?? PRIORITY_DEFAULT,
          effectiveAt,
          expiresAt,
          status: "active",
          metadata: input.metadata ?? {},
          created: now,
          updated: now,
        })
        .returning(),
    );
    await emitGrant(tx, ctx, "credit_grant.created", row, null);
    return row;
  });
  // It expires then (expiry.ts): wake the clock's driver for it.
  if (created.expiresAt) await transitionScheduled(ctx, created.expiresAt);
  return created;
}

export async function getCreditGrant({ ctx, input }: Verb<{ id: string }>): Promise<CreditGrantRow> {
  const db = await getDb();
  const [row] = await db.select().from(creditGrants).where(ofAccount(ctx.accountId, input.id));
  if (!row) throw notFound("credit grant", input.id);
  return row;
}

export async function listCreditGrants({ ctx, input }: Verb<Page & { customer?: string }>): Promise<{ rows: CreditGrantRow[] } & PageInfo> {
  const where = and(eq(creditGrants.accountId, ctx.accountId), input.customer ? eq(creditGrants.customerId, input.customer) : undefined);
  return pageOf(creditGrants, where, input);
}

/** A grant's ledger: what it paid, oldest first (a grant pays a few lines per invoice). */
export async function listCreditGrantApplications({ ctx, input }: Verb<{ id: string }>): Promise<CreditGrantApplicationRow[]> {
  const grant = await getCreditGrant({ ctx, input });
  const db = await getDb();
  return db
    .select()
    .from(creditGrantApplications)
    .where(eq(creditGrantApplications.creditGrantId, grant.id))
    .orderBy(asc(creditGrantApplications.created), asc(creditGrantApplications.id));
}

/** Voids an active or depleted grant (`credit_grant.voided`): what remained never applies again. */
export async function voidCreditGrant({ ctx, input }: Verb<{ id: string }>): Promise<CreditGrantRow> {
  return withChangeTransaction(async (tx) => {
    const [before] = await tx.select().from(creditGrants).where(ofAccount(ctx.accountId, input.id)).for("update");
    if (!before) throw notFound("credit grant", input.id);
    if (!may("void", before.status)) {
      throw new ServiceError("conflict", `Credit grant '${before.id}' is ${before.status}; only an active or depleted grant can be voided.`);
    }
    const now = ctx.now();
    const after = one(await tx.update(creditGrants).set({ status: "voided", voidedAt: now, updated: now }).where(eq(creditGrants.id, before.id)).returning());
    await emitGrant(tx, ctx, "credit_grant.voided", after, before);
    return after;
  });
}

/**
 * The clock's expiry of one grant (expiry.ts): an active grant whose `expires_at` has come, re-read
 * under its lock, becomes `expired` with `credit_grant.expired` (actor system). False when it no
 * longer qualifies (voided, depleted or already expired meanwhile).
 */
export async function expireDueGrant(ctx: ServiceContext, id: string): Promise<boolean> {
  return withChangeTransaction(async (tx) => {
    const [before] = await tx.select().from(creditGrants).where(ofAccount(ctx.accountId, id)).for("update");
    const now = ctx.now();
    if (!before || !may("expire", before.status) || before.expiresAt === null || before.expiresAt.getTime() > now.getTime()) return false;
    const after = one(await tx.update(creditGrants).set({ status: "expired", expiredAt: now, updated: now }).where(eq(creditGrants.id, id)).returning());
    await emitGrant(tx, ctx, "credit_grant.expired", after, before);
    return true;
  });
}

/** Active, effective at `at` and not expired at `at`: the grants that may pay an invoice finalized then. */
const applicableAt = (at: Date) =>
  and(
    eq(creditGrants.status, "active"),
    lte(creditGrants.effectiveAt, at),
    or(isNull(creditGrants.expiresAt), gt(creditGrants.expiresAt, at)),
    gt(creditGrants.remainingAtom, 0),
  );

/**
 * What a customer has left to apply in `currency` now (the account's clock): Σ of the remaining
 * amounts of its grants that would pay an invoice finalized now. (The `credit_balance` alerts and
 * the portal read it.)
 */
export async function remainingCredit({ ctx, customerId, currency, executor }: { ctx: ServiceContext; customerId: string; currency: string; executor?: Executor }): Promise<number> {
  const db = executor ?? (await getDb());
  const [row] = await db
    .select({ sum: sql<string | null>`sum(${creditGrants.remainingAtom})` })
    .from(creditGrants)
    .where(and(eq(creditGrants.accountId, ctx.accountId), eq(creditGrants.customerId, customerId), eq(creditGrants.currency, currency.toLowerCase()), applicableAt(ctx.now())));
  return Number(row?.sum ?? 0);
}

/** Per currency, what a customer has left now (the portal's "Remaining credit"), currencies in order. */
export async function remainingCreditByCurrency({ ctx, customerId }: { ctx: ServiceContext; customerId: string }): Promise<{ currency: string; remainingAtom: number }[]> {
  const db = await getDb();
  const rows = await db
    .select({ currency: creditGrants.currency, sum: sql<string>`sum(${creditGrants.remainingAtom})` })
    .from(creditGrants)
    .where(and(eq(creditGrants.accountId, ctx.accountId), eq(creditGrants.customerId, customerId), applicableAt(ctx.now())))
    .groupBy(creditGrants.currency)
    .orderBy(asc(creditGrants.currency));
  return rows.map((row) => ({ currency: row.currency, remainingAtom: Number(row.sum) }));
}

/** An invoice line as the grants see it: what a credit may pay of it, and the meter of its price (metered lines). */
export type CreditableLine = { id: string; payableAtom: number; meterId: string | null };

export type CreditsFor = { grants: CreditGrantRow[]; applications: CreditApplication[]; creditsAtom: number };

/**
 * What the customer's grants pay on an invoice finalized at `at`
 * (docs/rules/invoices.md, "Credit grants at finalization"): the grants in the invoice's currency
 * applicable at `at`, in `creditGrantOrder`, each paying its eligible lines by `applyCredits`.
 * `lock`: finalization takes the grants' row locks (in id order, so two finalizations of one
 * customer take turns and the second sees what the first left); a preview reads without them.
 */
export async function creditsFor(
  executor: Executor,
  invoice: { accountId: string; customerId: string; currency: string },
  lines: readonly CreditableLine[],
  at: Date,
  lock: boolean,
): Promise<CreditsFor> {
  if (lines.every((line) => line.payableAtom === 0)) return { grants: [], applications: [], creditsAtom: 0 };
  const query = executor
    .select()
    .from(creditGrants)
    .where(and(eq(creditGrants.accountId, invoice.accountId), eq(creditGrants.customerId, invoice.customerId), eq(creditGrants.currency, invoice.currency), applicableAt(at)))
    .orderBy(asc(creditGrants.id));
  const grants = (lock ? await query.for("update") : await query).sort(creditGrantOrder);
  const applications = applyCredits(
    lines.map((line) => line.payableAtom),
    grants.map((grant) => ({
      id: grant.id,
      remainingAtom: grant.remainingAtom,
      eligible: (index: number) => grant.appliesToMeters === null || (lines[index]!.meterId !== null && grant.appliesToMeters.includes(lines[index]!.meterId!)),
    })),
  );
  return { grants, applications, creditsAtom: applications.reduce((sum, application) => sum + application.amountAtom, 0) };
}

/**
 * In the finalizing transaction (after `creditsFor` with `lock`): each grant's remaining goes down
 * by what it paid (a conditional update: never below 0 whatever happened), one ledger row per line
 * paid, `credit_grant.applied` per grant, and `credit_grant.depleted` for a grant left with nothing.
 */
export async function recordCreditApplications(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  invoice: { id: string; customerId: string; currency: string },
  lines: readonly CreditableLine[],
  credits: CreditsFor,
): Promise<void> {
  if (credits.applications.length === 0) return;
  const now = ctx.now();
  await tx.insert(creditGrantApplications).values(
    credits.applications.map((application) => ({
      id: newId("creditGrantApplication"),
      accountId: ctx.accountId,
      creditGrantId: application.grantId,
      customerId: invoice.customerId,
      invoiceId: invoice.id,
      invoiceLineId: lines[application.lineIndex]!.id,
      currency: invoice.currency,
      amountAtom: application.amountAtom,
      created: now,
    })),
  );
  for (const before of credits.grants) {
    const paid = credits.applications.filter((application) => application.grantId === before.id).reduce((sum, application) => sum + application.amountAtom, 0);
    if (paid === 0) continue;
    const [after] = await tx
      .update(creditGrants)
      .set({
        remainingAtom: sql`${creditGrants.remainingAtom} - ${paid}`,
        status: sql`case when ${creditGrants.remainingAtom} - ${paid} = 0 then 'depleted' else ${creditGrants.status} end`,
        updated: now,
      })
      .where(and(eq(creditGrants.id, before.id), eq(creditGrants.status, "active"), sql`${creditGrants.remainingAtom} >= ${paid}`))
      .returning();
    // The row is locked by creditsFor: it cannot have changed. Refuse rather than over-apply.
    if (!after) throw new Error(`Credit grant '${before.id}' changed under its lock; nothing was applied.`);
    await emitGrant(tx, ctx, "credit_grant.applied", after, before);
    if (after.status === "depleted") await emitGrant(tx, ctx, "credit_grant.depleted", after, before);
  }
}

/**
 * Voiding an invoice (its transaction, the invoice locked): what grants paid on it returns to them,
 * as Stripe's billing credits do. Each grant still active or depleted, and not expired at the void
 * (the account's clock), gets the sum of its rows back (`credit_grant.reinstated`; depleted →
 * active) and the rows are marked `reinstated_at`. An expired or voided grant gets nothing back:
 * its rows stay, the credit used.
 */
export async function reinstateCredits(tx: ChangeTransaction, ctx: ServiceContext, invoiceId: string): Promise<void> {
  const rows = await tx
    .select()
    .from(creditGrantApplications)
    .where(and(eq(creditGrantApplications.accountId, ctx.accountId), eq(creditGrantApplications.invoiceId, invoiceId), isNull(creditGrantApplications.reinstatedAt)));
  if (rows.length === 0) return;
  const now = ctx.now();
  // Grants locked in id order, as finalization locks them: never a deadlock with one.
  const grantIds = [...new Set(rows.map((row) => row.creditGrantId))].sort();
  for (const grantId of grantIds) {
    const [before] = await tx.select().from(creditGrants).where(eq(creditGrants.id, grantId)).for("update");
    if (!before || !(before.status === "active" || before.status === "depleted")) continue;
    if (before.expiresAt !== null && before.expiresAt.getTime() <= now.getTime()) continue;
    const mine = rows.filter((row) => row.creditGrantId === grantId);
    const back = mine.reduce((sum, row) => sum + row.amountAtom, 0);
    const after = one(await tx
      .update(creditGrants)
      .set({ remainingAtom: sql`${creditGrants.remainingAtom} + ${back}`, status: "active", updated: now })
      .where(eq(creditGrants.id, grantId))
      .returning());
    await tx
      .update(creditGrantApplications)
      .set({ reinstatedAt: now })
      .where(inArray(creditGrantApplications.id, mine.map((row) => row.id)));
    await emitGrant(tx, ctx, "credit_grant.reinstated", after, before);
  }
}

/** The grants of a customer for the dashboard's customer page: newest first, at most `limit`. */
export async function customerCreditGrants({ ctx, customerId, limit }: { ctx: ServiceContext; customerId: string; limit: number }): Promise<CreditGrantRow[]> {
  const db = await getDb();
  return db
    .select()
    .from(creditGrants)
    .where(and(eq(creditGrants.accountId, ctx.accountId), eq(creditGrants.customerId, customerId)))
    .orderBy(desc(creditGrants.created), desc(creditGrants.id))
    .limit(limit);
}
