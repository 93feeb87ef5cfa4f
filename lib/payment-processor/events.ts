import { and, asc, eq, isNull, or, sql } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts, paymentIntents, paymentMethods, processorEvents, refunds } from "@/db/schema";
import { accountClock, realNow } from "@/lib/time";
import type { ServiceContext } from "@/lib/context";
import { notFound, ServiceError } from "@/lib/errors";
import { jobs } from "@/lib/jobs";
import { log, safeError } from "@/lib/log";
import { applyProcessorState } from "@/lib/payments/charge-attempts";
import { applyRefundState } from "@/lib/refunds/service";
import { applyDisputeState } from "@/lib/disputes/service";
import { saveMethodOfCheckout, settleSetup } from "@/lib/payment-methods/setup";
import { applyPaymentMethodState } from "@/lib/payment-methods/service";
import { connectedProcessor, loadConnection, processorDefinition, processorNamed } from "@/lib/payments/processors/registry";
import { notifyProcessorSettled } from "@/lib/payments/succeeded-hooks";

/*
 * Processor webhooks, received like a bank (docs/payments.md, "Processor webhooks"): verified,
 * stored first (unique by the processor's event id: a redelivery is a no-op), answered, then
 * applied by a job that re-reads the object at the processor, so the order of arrival is irrelevant.
 */

/** Attempts before a stored event is marked failed (each failure leaves it pending for the next pass). */
const MAX_ATTEMPTS = 5;

/** Verifies and stores one delivery; answers whether it was new. A signature that does not verify is a 400 and stores nothing. */
export async function receiveProcessorEvent(input: { processor: string; accountId: string; payload: string; headers: Headers }): Promise<{ duplicate: boolean }> {
  const db = await getDb();
  const connection = await loadConnection(db, input.accountId);
  const definition = connection && connection.processor === input.processor ? processorDefinition(connection.processor) : undefined;
  if (!connection || !definition) throw notFound(`${input.processor} connection of account`, input.accountId);
  let event;
  try {
    event = definition.open(connection).parseWebhook(input.payload, input.headers);
  } catch {
    throw new ServiceError("bad_request", "The webhook's signature did not verify (or is older than 5 minutes).");
  }
  const stored = await db
    .insert(processorEvents)
    .values({ accountId: input.accountId, processor: input.processor, eventId: event.id, type: event.type, objectReference: event.objectReference, payload: event.payload })
    .onConflictDoNothing()
    .returning({ eventId: processorEvents.eventId });
  if (stored.length > 0) await jobs().processorEventsReceived(input.accountId);
  return { duplicate: stored.length === 0 };
}

async function systemContext(accountId: string): Promise<ServiceContext> {
  const db = await getDb();
  const [account] = await db.select({ livemode: accounts.livemode, clockOffsetMs: accounts.clockOffsetMs }).from(accounts).where(eq(accounts.id, accountId));
  if (!account) throw notFound("account", accountId);
  return { accountId, livemode: account.livemode, actor: { type: "system", id: null }, correlationId: null, now: accountClock(account.clockOffsetMs) };
}

/** Applies one stored event: the object is re-read at the processor and our intent brought to its state. */
async function applyOne(ctx: ServiceContext, row: typeof processorEvents.$inferSelect): Promise<void> {
  const where = and(eq(processorEvents.accountId, row.accountId), eq(processorEvents.processor, row.processor), eq(processorEvents.eventId, row.eventId));
  try {
    let outcome: "applied" | "ignored" = "ignored";
    if (row.type.startsWith("payment_intent.") && row.objectReference) {
      const db = await getDb();
      const connected = await connectedProcessor(db, row.accountId);
      // Ours by the processor's id, or (its first answer lost: the id never reached us) by the id we gave it as metadata.
      const ours = connected?.name === row.processor ? connected.ourReferenceOf(row.payload) : null;
      const [intent] = await db
        .select({ id: paymentIntents.id, processor: paymentIntents.processor, chargeInFlight: paymentIntents.chargeInFlight })
        .from(paymentIntents)
        .where(and(eq(paymentIntents.accountId, row.accountId), ours ? or(eq(paymentIntents.processorReference, row.objectReference), eq(paymentIntents.id, ours)) : eq(paymentIntents.processorReference, row.objectReference)))
        .limit(1);
      const processor = intent ? await processorNamed(db, row.accountId, intent.chargeInFlight?.processor ?? intent.processor) : null;
      if (intent && processor) {
        const applied = await applyProcessorState(ctx, intent.id, await processor.retrieve(row.objectReference));
        outcome = applied.applied ? "applied" : "ignored";
        // A checkout that saves its card: the saved method recorded once (lib/payment-methods/setup.ts).
        await saveMethodOfCheckout(ctx, applied.row);
        // A subscription checkout paid by it starts its subscription (once; lib/checkout/on-session.ts).
        await notifyProcessorSettled(ctx, { kind: "payment_intent", intent: applied.row });
      }
    } else if ((row.type.startsWith("refund.") || row.type === "charge.refund.updated") && row.objectReference) {
      outcome = await applyRefundEvent(ctx, row);
    } else if (row.type.startsWith("charge.dispute.") && row.objectReference) {
      outcome = await applyDisputeEvent(ctx, row);
    } else if ((row.type === "payment_method.updated" || row.type === "payment_method.automatically_updated") && row.objectReference) {
      outcome = await applyPaymentMethodEvent(ctx, row);
    } else if (row.type.startsWith("setup_intent.") && row.objectReference) {
      // A card saved in the browser (lib/payment-methods/setup.ts): the setup re-read, recorded once.
      const settled = await settleSetup(ctx, { processor: row.processor, reference: row.objectReference });
      outcome = settled.status === "succeeded" && settled.recorded ? "applied" : "ignored";
      // A trial's checkout that collected its card with this setup starts its subscription (once).
      if (settled.status === "succeeded") {
        await notifyProcessorSettled(ctx, { kind: "setup", reference: row.objectReference, paymentMethodId: settled.paymentMethod.id, customerId: settled.paymentMethod.customerId });
      }
    }
    // Labelled once: another instance's pass over the same account may have labelled it first.
    await (await getDb())
      .update(processorEvents)
      .set({ status: outcome, attempts: sql`${processorEvents.attempts} + 1`, error: null, appliedAt: realNow() })
      .where(and(where, eq(processorEvents.status, "pending")));
  } catch (error) {
    log().warn({ err: safeError(error), event: row.eventId }, "processor event not applied; retried on the next pass");
    await (await getDb())
      .update(processorEvents)
      .set({ attempts: sql`${processorEvents.attempts} + 1`, error: String(error).slice(0, 500), status: row.attempts + 1 >= MAX_ATTEMPTS ? "failed" : "pending" })
      .where(where);
  }
}

/** A refund's event: the refund is re-read at the processor and ours settled by it (pending until the processor settles). */
async function applyRefundEvent(ctx: ServiceContext, row: typeof processorEvents.$inferSelect): Promise<"applied" | "ignored"> {
  const db = await getDb();
  const processor = await connectedProcessor(db, row.accountId);
  if (!processor || processor.name !== row.processor) return "ignored";
  const ours = processor.ourReferenceOf(row.payload);
  const [refund] = await db
    .select({ id: refunds.id, status: refunds.status })
    .from(refunds)
    .where(and(eq(refunds.accountId, row.accountId), ours ? or(eq(refunds.processorReference, row.objectReference!), eq(refunds.id, ours)) : eq(refunds.processorReference, row.objectReference!)))
    .limit(1);
  if (!refund || refund.status !== "pending") return "ignored";
  const after = await applyRefundState(ctx, refund.id, await processor.retrieveRefund(row.objectReference!));
  return after.status === "pending" ? "ignored" : "applied";
}

/**
 * A dispute's event (`charge.dispute.created/updated/closed`): the dispute is re-read at the
 * processor, and ours made or moved by that state, once (lib/disputes/service.ts): a duplicate or
 * an older event re-reads the same state and changes nothing.
 */
async function applyDisputeEvent(ctx: ServiceContext, row: typeof processorEvents.$inferSelect): Promise<"applied" | "ignored"> {
  const processor = await connectedProcessor(await getDb(), row.accountId);
  if (!processor || processor.name !== row.processor) return "ignored";
  return applyDisputeState(ctx, processor.name, await processor.retrieveDispute(row.objectReference!));
}

/**
 * A saved card changed at the processor (its update, or the card updater's new expiry or last 4):
 * the method is re-read there and ours given its details, once (lib/payment-methods/service.ts): a
 * duplicate, or an older event arriving late, re-reads the same card and changes nothing. A method
 * that is not ours is not asked for.
 */
async function applyPaymentMethodEvent(ctx: ServiceContext, row: typeof processorEvents.$inferSelect): Promise<"applied" | "ignored"> {
  const db = await getDb();
  const processor = await connectedProcessor(db, row.accountId);
  if (!processor?.retrievePaymentMethod || processor.name !== row.processor) return "ignored";
  const [ours] = await db
    .select({ id: paymentMethods.id })
    .from(paymentMethods)
    .where(and(eq(paymentMethods.accountId, row.accountId), eq(paymentMethods.processor, row.processor), eq(paymentMethods.processorReference, row.objectReference!), isNull(paymentMethods.detachedAt)))
    .limit(1);
  if (!ours) return "ignored";
  return (await applyPaymentMethodState(ctx, processor.name, await processor.retrievePaymentMethod(row.objectReference!))) ? "applied" : "ignored";
}

/** A pass over one account's pending events running in this process, and whether another was asked for meanwhile. */
type Pass = { running: Promise<void>; again: boolean };
// One map per process even when Next.js bundles this module more than once (the webhook route and the jobs).
const PASSES = Symbol.for("billing-service.processor-event-passes");

function passes(): Map<string, Pass> {
  const store = globalThis as typeof globalThis & { [PASSES]?: Map<string, Pass> };
  return (store[PASSES] ??= new Map());
}

/**
 * The job: every pending event of the account, oldest first, each applied once. One pass at a
 * time per account in this process: a delivery that arrives during a pass asks for one more pass
 * after it (coalesced) instead of running beside it, where both would apply the same stored event
 * and the later would overwrite the earlier's outcome.
 */
export async function applyPendingProcessorEvents(accountId: string): Promise<void> {
  const running = passes().get(accountId);
  if (running) {
    running.again = true;
    return running.running;
  }
  const pass: Pass = { running: Promise.resolve(), again: false };
  pass.running = (async () => {
    try {
      do {
        pass.again = false;
        await applyPendingOnce(accountId);
      } while (pass.again);
    } finally {
      passes().delete(accountId);
    }
  })();
  passes().set(accountId, pass);
  return pass.running;
}

async function applyPendingOnce(accountId: string): Promise<void> {
  const db = await getDb();
  const ctx = await systemContext(accountId);
  const pending = await db
    .select()
    .from(processorEvents)
    .where(and(eq(processorEvents.accountId, accountId), eq(processorEvents.status, "pending")))
    .orderBy(asc(processorEvents.received));
  for (const row of pending) await applyOne(ctx, row);
}
