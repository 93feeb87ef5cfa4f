"use server";

import { z } from "zod";
import type { StartPaymentResult } from "@/components/payments/stripe-payment-form";
import { startCheckoutCollection } from "@/lib/checkout/on-session";
import { ServiceError, type FieldError } from "@/lib/errors";
import { newId } from "@/lib/ids";

const Email = z.email().max(254);

/**
 * The hosted checkout page's Pay on an account connected to Stripe (public, as the page is: the
 * session id is the capability): the payment (or, for a trial, the card's setup) is made ready at
 * Stripe and its client secret answered for Stripe.js to confirm. Nothing completes here.
 */
export async function startCheckoutPaymentAction(sessionId: string, email: string | null): Promise<StartPaymentResult> {
  if (email !== null && !Email.safeParse(email).success) return { ok: false, message: "Enter a valid email address.", emailError: "Enter a valid email address." };
  try {
    // A payment, or (a subscription with nothing due now) a setup of the card: the page knows which it confirms.
    const started = await startCheckoutCollection({ input: { id: String(sessionId), ...(email !== null ? { email } : {}), correlationId: newId("request") } });
    return { ok: true, clientSecret: started.clientSecret };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const fields = (error.extras.errors as FieldError[] | undefined) ?? [];
    return { ok: false, message: error.message, emailError: fields.find((field) => field.field === "email")?.message };
  }
}
