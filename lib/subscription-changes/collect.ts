import { and, eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { invoices, paymentIntents } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { withChangeTransaction } from "@/lib/events/transaction";
import type { InvoiceWithLines } from "@/lib/invoices/serialize";
import { createInvoice, finalizeInvoice, getInvoice } from "@/lib/invoices/service";
import { prorationInvoiceDescription, subscriptionNameOf } from "@/lib/invoices/descriptions";
import { prorationLineDescription } from "@/lib/invoices/lines";
import { isOutstanding } from "@/lib/invoices/rules";
import { payInvoice } from "@/lib/invoices/settle";
import { checkSubscriptionPaymentMethod } from "@/lib/payments/processors/registry";
import { one } from "@/lib/rows";
import type { SubscriptionRow } from "@/lib/subscriptions/serialize";
import { lockRequest, recordError, table } from "./core";
import type { ChangeRequestRow } from "./serialize";

/** Why the proration invoice is not paid, from the invoice and its latest payment intent. */
async function collectionFailure(invoice: InvoiceWithLines): Promise<string> {
  if (invoice.invoice.status === "void") return `the proration invoice '${invoice.invoice.id}' was voided`;
  const intentId = invoice.paymentIntent ?? null;
  if (intentId === null) return `the proration invoice '${invoice.invoice.id}' is ${invoice.invoice.status}`;
  const db = await getDb();
  const [intent] = await db.select().from(paymentIntents).where(eq(paymentIntents.id, intentId));
  if (intent?.lastPaymentError) return intent.lastPaymentError;
  if (intent?.status === "requires_action") return `payment intent '${intent.id}' requires the customer's action`;
  if (invoice.invoice.paidAmountAtom > 0) {
    return `only ${invoice.invoice.paidAmountAtom} of ${invoice.invoice.totalAmountAtom} atoms were collected (payment intent '${intentId}')`;
  }
  return `payment intent '${intentId}' is ${intent?.status ?? "unknown"}`;
}

/**
 * Collects `amount_due_now_atom` before any step is applied: one proration invoice per change
 * request (described by prorationInvoiceDescription, one line "Proration (15 Jan 2027 – 1 Feb 2027)", linked to the subscription), finalized (the customer's
 * discount applies, as on every invoice) and paid with the method. A failed payment leaves the
 * invoice open for the next apply (with this or another method) and the request open: 409.
 */
export async function collectPayment(
  ctx: ServiceContext,
  request: ChangeRequestRow,
  subscription: SubscriptionRow,
  paymentMethod: string | undefined,
): Promise<ChangeRequestRow> {
  const method = paymentMethod ?? subscription.defaultPaymentMethod;
  if (method === null) {
    const message = `${request.amountDueNowAtom} ${request.currency} atoms are due now and subscription '${subscription.id}' has no default_payment_method: give payment_method.`;
    throw new ServiceError("bad_request", `Missing required field: payment_method. ${message}`, { errors: [{ field: "payment_method", message }] });
  }
  // Before anything is written: live accounts and unknown methods are a 422 on payment_method.
  await checkSubscriptionPaymentMethod(await getDb(), ctx, method, subscription.customerId, "payment_method");

  let invoiceId = request.invoiceId;
  if (invoiceId === null) {
    const draft = await createInvoice({
      ctx,
      input: {
        customer: subscription.customerId,
        currency: request.currency,
        description: prorationInvoiceDescription(await subscriptionNameOf(await getDb(), subscription.id), request.prorationDate, subscription.currentPeriodEnd),
        lines: [{ unit_amount_atom: request.amountDueNowAtom, description: prorationLineDescription(request.prorationDate, subscription.currentPeriodEnd), quantity: 1 }],
      },
    });
    invoiceId = await withChangeTransaction(async (tx) => {
      const locked = await lockRequest(tx, ctx, request.subscriptionId, request.id);
      if (locked.status === "canceled") throw new ServiceError("conflict", `Change request '${locked.id}' was canceled.`);
      // A concurrent apply claimed first: its invoice is the one; this draft stays unlinked and owes nothing.
      if (locked.invoiceId !== null) return locked.invoiceId;
      await tx
        .update(invoices)
        .set({ subscriptionId: subscription.id })
        .where(and(eq(invoices.id, draft.invoice.id), eq(invoices.status, "draft")));
      await tx.update(table).set({ invoiceId: draft.invoice.id, updated: ctx.now() }).where(eq(table.id, locked.id));
      return draft.invoice.id;
    });
  }

  const id = invoiceId;
  let invoice = await getInvoice({ ctx, input: { id } });
  // A concurrent apply of the same request may finalize or pay the invoice between our read and
  // our call (a 409 from lib/invoices): what counts is the invoice as it stands afterwards.
  const settled = async (step: () => Promise<InvoiceWithLines>, done: (status: string) => boolean) => {
    try {
      return await step();
    } catch (error) {
      if (!(error instanceof ServiceError) || error.category !== "conflict") throw error;
      const now = await getInvoice({ ctx, input: { id } });
      if (done(now.invoice.status)) return now;
      throw error;
    }
  };
  if (invoice.invoice.status === "draft") {
    invoice = await settled(() => finalizeInvoice({ ctx, input: { id } }), (status) => status !== "draft");
  }
  if (isOutstanding(invoice.invoice.status)) {
    invoice = await settled(() => payInvoice({ ctx, input: { id, payment: { payment_method: method } } }), (status) => status === "paid");
  }
  if (invoice.invoice.status !== "paid") {
    const reason = (await collectionFailure(invoice)).replace(/\.$/, "");
    await recordError(ctx, request, `Payment not collected: ${reason}.`);
    throw new ServiceError(
      "conflict",
      `The ${request.amountDueNowAtom} ${request.currency} atoms due now for change request '${request.id}' were not collected: ${reason}. Nothing was applied and the change request is still open; apply it again (with another payment_method) or cancel it.`,
      { change_request_id: request.id, invoice_id: invoiceId, payment_intent: invoice.paymentIntent ?? null },
    );
  }
  return withChangeTransaction(async (tx) => {
    const locked = await lockRequest(tx, ctx, request.subscriptionId, request.id);
    if (locked.paymentCollectedAt !== null) return locked;
    // The customer paid: the change goes ahead even if a cancel slipped in meanwhile.
    const row = one(await tx
      .update(table)
      .set({ paymentCollectedAt: ctx.now(), status: "partially_applied", lastError: null, updated: ctx.now() })
      .where(eq(table.id, locked.id))
      .returning());
    return row;
  });
}
