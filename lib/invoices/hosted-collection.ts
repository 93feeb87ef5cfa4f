import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import { getDb } from "@/db/client";
import { paymentIntents } from "@/db/schema";
import { ServiceError } from "@/lib/errors";
import { withChangeTransaction } from "@/lib/events/transaction";
import { intentByReference, onSessionProcessor, prepareOnSessionPayment, settleOnSessionPayment } from "@/lib/payments/on-session";
import { chargeInFlightOfInvoice, createPaymentIntent } from "@/lib/payments/service";
import { lockInvoice } from "./core";
import { findHostedInvoice } from "./hosted";

/*
 * The hosted invoice page paid in the browser with the account's Stripe (docs/payments.md, "The
 * hosted pages with Stripe"). Pay makes (or reuses) the invoice's payment intent and Stripe's, and
 * hands Stripe.js its client secret; the invoice is paid only by Stripe's word (the verified webhook,
 * or the retrieve on the return URL), through the intent's outcome as for any charge.
 */

/** The publishable key of the processor that collects this invoice in the browser, or null (none connected: the sandbox form or nothing). */
export async function hostedInvoiceCollector(accountId: string): Promise<string | null> {
  const processor = await onSessionProcessor(accountId);
  return processor?.clientKey ?? null;
}

/**
 * The customer's Pay on the hosted page: the invoice's intent waiting for the customer (made by an
 * earlier Pay, or a renewal's off-session charge that needed 3-D Secure) for what is due, or a new
 * one, under the invoice's lock so two tabs share one; then Stripe's, whose client secret answers.
 */
export async function startHostedInvoicePayment(input: { token: string; correlationId: string }): Promise<{ clientSecret: string; paymentIntent: string }> {
  const { found, ctx: base } = await findHostedInvoice(input.token);
  const ctx = { ...base, correlationId: input.correlationId };
  const processor = await onSessionProcessor(ctx.accountId);
  if (!processor) throw new ServiceError("conflict", "This invoice cannot be paid by card here: its account has no payment processor connected.");
  const intentId = await withChangeTransaction(async (tx) => {
    const invoice = await lockInvoice(tx, ctx.accountId, found.invoice.id);
    if (invoice.status !== "open" || invoice.dueAmountAtom <= 0) throw new ServiceError("conflict", `Invoice '${invoice.id}' is ${invoice.status}; there is nothing to pay.`);
    if (await chargeInFlightOfInvoice(tx, ctx.accountId, invoice.id)) {
      throw new ServiceError("conflict", "A payment of this invoice is being made; wait a moment and reload the page.", { retryable: true });
    }
    const [waiting] = await tx
      .select()
      .from(paymentIntents)
      .where(
        and(
          eq(paymentIntents.accountId, ctx.accountId),
          eq(paymentIntents.invoiceId, invoice.id),
          inArray(paymentIntents.status, ["requires_payment_method", "requires_action"]),
          isNull(paymentIntents.chargeInFlight),
        ),
      )
      .orderBy(desc(paymentIntents.created))
      .limit(1);
    const usable = waiting && waiting.amountAtom - waiting.amountReceivedAtom === invoice.dueAmountAtom && (waiting.processor === null || waiting.processor === processor.name);
    if (usable) return waiting.id;
    const intent = await createPaymentIntent({
      ctx,
      tx,
      input: { amount_atom: invoice.dueAmountAtom, currency: invoice.currency, customer: invoice.customerId, invoice: invoice.id },
    });
    return intent.id;
  });
  const prepared = await prepareOnSessionPayment(ctx, intentId);
  return { clientSecret: prepared.clientSecret, paymentIntent: intentId };
}

/** The return URL (`?payment_intent=pi_…`): this invoice's intent re-read at Stripe and applied, whatever the browser says. */
export async function settleHostedInvoiceReturn(input: { token: string; reference: string }): Promise<void> {
  const { found, ctx } = await findHostedInvoice(input.token);
  const intent = await intentByReference(await getDb(), ctx.accountId, input.reference);
  if (!intent || intent.invoiceId !== found.invoice.id) return;
  await settleOnSessionPayment(ctx, intent.id, input.reference);
}
