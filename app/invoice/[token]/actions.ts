"use server";

import type { StartPaymentResult } from "@/components/payments/stripe-payment-form";
import { ServiceError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { startHostedInvoicePayment } from "@/lib/invoices/hosted-collection";

/**
 * The hosted invoice page's Pay on an account connected to Stripe (public: the token is the
 * capability): the invoice's payment made ready at Stripe, its client secret answered for Stripe.js
 * to confirm. The invoice is paid only by Stripe's word, later.
 */
export async function startHostedInvoicePaymentAction(token: string): Promise<StartPaymentResult> {
  try {
    const started = await startHostedInvoicePayment({ token: String(token), correlationId: newId("request") });
    return { ok: true, clientSecret: started.clientSecret };
  } catch (error) {
    if (error instanceof ServiceError) return { ok: false, message: error.message };
    throw error;
  }
}
