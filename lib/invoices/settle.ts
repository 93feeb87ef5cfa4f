import { eq } from "drizzle-orm";
import type { z } from "zod";
import { invoices } from "@/db/schema";
import type { ServiceContext, Verb } from "@/lib/context";
import { retryableConflict, ServiceError, validationFailed } from "@/lib/errors";
import type { EventType } from "@/lib/events/catalogue";
import { withChangeTransaction, type ChangeTransaction, type WithinChange } from "@/lib/events/transaction";
import type { EmittedEvent } from "@/lib/events/emit";
import { enqueueFinalNotice } from "@/lib/email-outbox/enqueue";
import { reverseBalanceApplied } from "@/lib/customer-balance/service";
import { reinstateCredits } from "@/lib/credit-grants/service";
import { confirmPaymentIntent } from "@/lib/payments/confirm";
import { chargeInFlightOfInvoice, createPaymentIntent } from "@/lib/payments/service";
import { getDb } from "@/db/client";
import { one } from "@/lib/rows";
import { INVOICE_ACTION_FROM, canVoid } from "./rules";
import { invoiceSettled } from "./settled";
import { collectionMethodOfInvoice } from "./collection-method";
import { assertStatus, emit, loadInvoice, lockInvoice, markPaid } from "./core";
import type { InvoicePayInput, InvoiceStatus } from "./schema";
import type { InvoiceRow, InvoiceWithLines } from "./serialize";

/* How an open invoice ends: paid (out of band or with a payment intent), void, or uncollectible. */

/**
 * Open or uncollectible → paid. Out of band (`paid_out_of_band: true`) marks it paid; with a
 * `payment_method`, one transaction holding the invoice's lock creates a payment intent for the
 * due amount (linked to the invoice and its customer) and confirms it: the intent's outcome
 * reaches the invoice through `applyPaymentIntentOutcome` (payment-hooks.ts), called by the
 * payments service, so an intent confirmed later behaves the same. Answers the invoice as it
 * stands afterwards: paid, or still open (payment failed, action required, partially funded).
 */
export async function payInvoice({
  ctx,
  input,
  tx: outer,
}: Verb<{ id: string; payment: z.output<typeof InvoicePayInput>; onSession?: boolean }> & WithinChange): Promise<InvoiceWithLines> {
  const { paid_out_of_band: outOfBand, payment_method: given } = input.payment;
  if (outOfBand === true && given !== undefined) {
    const message = "Give either paid_out_of_band: true or payment_method, not both.";
    throw validationFailed([{ field: "payment_method", message }], message);
  }
  // No method given: the subscription's default, then the customer's (./collection-method.ts).
  const paymentMethod = given ?? (outOfBand === true ? undefined : ((await collectionMethodOfInvoice(outer ?? (await getDb()), ctx.accountId, input.id)) ?? undefined));
  if (outOfBand !== true && paymentMethod === undefined) {
    const message =
      "Give payment_method (a sandbox payment method, on sandbox accounts) or paid_out_of_band: true once the customer paid outside the service: neither the invoice's subscription nor its customer has a default_payment_method.";
    throw validationFailed([{ field: "paid_out_of_band", message }], message);
  }
  const answer = await withChangeTransaction(async (tx) => {
    const invoice = await lockInvoice(tx, ctx.accountId, input.id);
    assertStatus(invoice, "paid", INVOICE_ACTION_FROM.pay);
    if (paymentMethod === undefined) return markPaid(tx, ctx, await loadInvoice(tx, invoice), ctx.now());
    // A charge of this invoice in flight at a network processor (an earlier pay that timed out):
    // sent again with its idempotency key, never a second charge.
    const inFlight = await chargeInFlightOfInvoice(tx, ctx.accountId, invoice.id);
    if (inFlight) {
      await confirmPaymentIntent({ ctx, tx, input: { id: inFlight, paymentMethod } });
      return loadInvoice(tx, invoice);
    }
    // Live accounts and unknown methods are refused (422) here, before anything is written.
    await createPaymentIntent({
      ctx,
      tx,
      input: {
        amount_atom: invoice.dueAmountAtom,
        currency: invoice.currency,
        customer: invoice.customerId,
        invoice: invoice.id,
        payment_method: paymentMethod,
        confirm: true,
        // The merchant (or its renewal and dunning) charges a saved method: off-session, unless the customer pays on a hosted page.
        offSession: input.onSession !== true,
      },
    });
    const [after] = await tx.select().from(invoices).where(eq(invoices.id, invoice.id));
    return loadInvoice(tx, after!);
  }, outer);
  if (outer || paymentMethod === undefined) return answer;
  // A network processor's charge ran after the commit (docs/payments.md): answer the invoice as it left it.
  const db = await getDb();
  const [after] = await db.select().from(invoices).where(eq(invoices.id, input.id));
  return loadInvoice(db, after!);
}

/**
 * A status change of one invoice. Voiding or writing off an invoice also ends its dunning
 * (`next_payment_attempt` null); when the merchant does it (`settles`), a past_due subscription
 * whose last invoice in dunning this was is active again, in the same transaction.
 */
async function transition(
  ctx: ServiceContext,
  tx: ChangeTransaction | undefined,
  id: string,
  rule: {
    action: string;
    from: readonly InvoiceStatus[];
    event: EventType;
    settles: boolean;
    /** Refuses the change (throws) for a reason beyond the status, before anything is written. */
    refuse?: (tx: ChangeTransaction, invoice: InvoiceRow) => Promise<void>;
    /** What else the change does, under the invoice's lock and in its transaction (`event`: the change's). */
    also?: (tx: ChangeTransaction, invoice: InvoiceRow, event: EmittedEvent) => Promise<unknown>;
  },
  change: (now: Date) => Partial<typeof invoices.$inferInsert>,
): Promise<InvoiceWithLines> {
  return withChangeTransaction(async (tx) => {
    const invoice = await lockInvoice(tx, ctx.accountId, id);
    assertStatus(invoice, rule.action, rule.from);
    await rule.refuse?.(tx, invoice);
    const before = await loadInvoice(tx, invoice);
    const now = ctx.now();
    const updated = one(await tx
      .update(invoices)
      .set({ ...change(now), nextPaymentAttempt: null, updated: now })
      .where(eq(invoices.id, invoice.id))
      .returning());
    const after = { ...before, invoice: updated };
    const event = await emit(tx, ctx, rule.event, after, before);
    await rule.also?.(tx, updated, event);
    if (rule.settles) await invoiceSettled(tx, ctx, invoice.id, invoice.subscriptionId);
    return after;
  }, tx);
}

/**
 * A charge of the invoice is in flight at a network processor (sent, its outcome not yet known):
 * it may still succeed, and a void would then leave the customer charged for nothing. Refused
 * until the charge's outcome is recorded (the retried pay, the processor's webhook or the
 * reconciliation job), as a payment intent's cancel is.
 */
async function refuseVoidWhileCharging(tx: ChangeTransaction, ctx: ServiceContext, invoice: InvoiceRow): Promise<void> {
  const inFlight = await chargeInFlightOfInvoice(tx, ctx.accountId, invoice.id);
  if (inFlight) {
    throw retryableConflict({
      errorCode: "charge_in_flight",
      title: "Charge In Flight",
      detail: `A charge of invoice '${invoice.id}' (payment intent '${inFlight}') is in flight at the payment processor; nothing was changed. Void it once the charge's outcome is known.`,
      fields: { invoice_id: invoice.id, subscription_id: invoice.subscriptionId },
    });
  }
}

/**
 * A part of the invoice was paid (a partially funded payment): voiding it would leave that money
 * attached to nothing, so it is refused (as Stripe refuses to void a paid invoice). A fully paid
 * invoice, out of band included, is `paid` and never voidable.
 */
function refuseVoidOfPaidPart(invoice: InvoiceRow): void {
  if (!canVoid({ status: invoice.status, paidAmountAtom: invoice.paidAmountAtom })) {
    throw new ServiceError(
      "conflict",
      `Invoice '${invoice.id}' has ${invoice.paidAmountAtom} of ${invoice.totalAmountAtom} atoms paid; an invoice with a payment cannot be voided. Collect the rest (pay), issue a credit note for it, or mark it uncollectible.`,
    );
  }
}

/**
 * Open or uncollectible → void: the invoice was a mistake; amounts are kept as billed, and the
 * customer balance its finalization applied is given back (`invoice_voided`, docs/billing.md).
 */
export async function voidInvoice({ ctx, input }: Verb<{ id: string }>): Promise<InvoiceWithLines> {
  return transition(
    ctx,
    undefined,
    input.id,
    {
      action: "voided",
      from: INVOICE_ACTION_FROM.void,
      event: "invoice.voided",
      settles: true,
      refuse: async (tx, invoice) => {
        refuseVoidOfPaidPart(invoice);
        await refuseVoidWhileCharging(tx, ctx, invoice);
      },
      also: async (tx, invoice) => {
        await reverseBalanceApplied(tx, ctx, invoice);
        await reinstateCredits(tx, ctx, invoice.id);
      },
    },
    (now) => ({ status: "void", voidedAt: now }),
  );
}

/** Open → uncollectible: not expected to be paid; it may still be paid out of band or voided. */
export async function markInvoiceUncollectible({ ctx, input }: Verb<{ id: string }>): Promise<InvoiceWithLines> {
  return transition(
    ctx,
    undefined,
    input.id,
    { action: "marked uncollectible", from: INVOICE_ACTION_FROM.markUncollectible, event: "invoice.marked_uncollectible", settles: true },
    (now) => ({ status: "uncollectible", markedUncollectibleAt: now }),
  );
}

/**
 * Dunning's last retry failed: open → uncollectible in the retry's transaction (the subscription is
 * cancelled next, by dunning), and the customer's final notice queued with it, once per that event.
 */
export async function markUncollectibleForNonPayment({ ctx, tx, input }: Verb<{ id: string }> & { tx: ChangeTransaction }): Promise<InvoiceWithLines> {
  return transition(
    ctx,
    tx,
    input.id,
    {
      action: "marked uncollectible",
      from: INVOICE_ACTION_FROM.markUncollectible,
      event: "invoice.marked_uncollectible",
      settles: false,
      also: async (tx, invoice, event) => {
        if (await enqueueFinalNotice(tx, ctx, invoice, event.id)) tx.emailsAfterCommit();
      },
    },
    (now) => ({ status: "uncollectible", markedUncollectibleAt: now }),
  );
}
