import { and, eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { customers, invoices, subscriptions } from "@/db/schema";
import { notFound } from "@/lib/errors";

/*
 * Which payment method collects an invoice that names none (docs/payments.md, "The customer's
 * default payment method"): the subscription's `default_payment_method`, then the customer's, as
 * Stripe's `subscription.default_payment_method` before `invoice_settings.default_payment_method`.
 * Read as they are at the attempt: a default changed or cleared (detached) since counts from then on.
 */

/** The subscription's method (when there is a subscription and it has one), else the customer's; null when neither. */
export async function collectionMethodOf(db: Executor, input: { subscriptionMethod: string | null; customerId: string }): Promise<string | null> {
  if (input.subscriptionMethod !== null) return input.subscriptionMethod;
  const [customer] = await db.select({ method: customers.defaultPaymentMethod }).from(customers).where(eq(customers.id, input.customerId));
  return customer?.method ?? null;
}

/** The method `POST /invoices/{id}/pay` charges when given none: its subscription's, then its customer's (404 for an unknown invoice). */
export async function collectionMethodOfInvoice(db: Executor, accountId: string, invoiceId: string): Promise<string | null> {
  const [invoice] = await db
    .select({ customerId: invoices.customerId, subscriptionMethod: subscriptions.defaultPaymentMethod })
    .from(invoices)
    .leftJoin(subscriptions, eq(subscriptions.id, invoices.subscriptionId))
    .where(and(eq(invoices.accountId, accountId), eq(invoices.id, invoiceId)));
  if (!invoice) throw notFound("invoice", invoiceId);
  return collectionMethodOf(db, { subscriptionMethod: invoice.subscriptionMethod ?? null, customerId: invoice.customerId });
}
