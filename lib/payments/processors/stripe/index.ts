import Stripe from "stripe";
import { z } from "zod";
import { config } from "@/lib/config";
import {
  ProcessorRefusedError,
  ProcessorUnavailableError,
  type ChargeRequest,
  type ChargeState,
  type DisputeState,
  type OnSessionIntent,
  type PaymentProcessor,
  type ProcessorConnection,
  type ProcessorDefinition,
  type RefundState,
  type SavedPaymentMethod,
  type SetupHandle,
  type SetupState,
} from "../types";

/*
 * Stripe, through the official SDK only (no hand-written HTTP). Every request is typed by the
 * SDK's own parameter types. `STRIPE_API_BASE` (lib/config.ts) says where the SDK sends them.
 */

/** The Stripe events the webhook endpoint created at connection subscribes to (docs/payments.md). */
export const STRIPE_WEBHOOK_EVENTS: Stripe.WebhookEndpointCreateParams.EnabledEvent[] = [
  "payment_intent.succeeded",
  "payment_intent.payment_failed",
  "payment_intent.processing",
  "payment_intent.requires_action",
  "payment_intent.canceled",
  "payment_intent.amount_capturable_updated",
  "payment_intent.partially_funded",
  "setup_intent.succeeded",
  "setup_intent.setup_failed",
  "payment_method.detached",
  "payment_method.updated",
  "payment_method.automatically_updated",
  "charge.refund.updated",
  "refund.created",
  "refund.updated",
  "refund.failed",
  "charge.dispute.created",
  "charge.dispute.updated",
  "charge.dispute.closed",
];

/** Stripe's own signature tolerance, 5 minutes: an older signed payload is refused (a replay). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * The SDK retries connection errors, 409s, 429s and 5xx itself with the same idempotency key;
 * after these the caller sees ProcessorUnavailableError and retries later with the same key.
 */
const NETWORK_RETRIES = 2;

function client(secretKey: string): Stripe {
  const base = new URL(config().stripeApiBase);
  const protocol = base.protocol === "http:" ? "http" : "https";
  return new Stripe(secretKey, {
    host: base.hostname,
    port: base.port || (protocol === "http" ? 80 : 443),
    protocol,
    maxNetworkRetries: NETWORK_RETRIES,
    timeout: 20_000,
    appInfo: { name: "billing-service" },
  });
}

function keyMode(key: string): "live" | "test" | null {
  const match = /^(?:sk|rk|pk)_(live|test)_/.exec(key);
  return match ? (match[1] as "live" | "test") : null;
}

const StripeCredentials = z.object({
  secret_key: z
    .string()
    .regex(/^(sk|rk)_(live|test)_[A-Za-z0-9_]+$/, "A Stripe secret (sk_live_…, sk_test_…) or restricted key (rk_…).")
    .meta({ description: "A Stripe secret key (`sk_…`) or restricted key (`rk_…`); stored encrypted, never returned.", example: "sk_test_51Q2w3E4r5T6y7U8iExampleKey" }),
  publishable_key: z
    .string()
    .regex(/^pk_(live|test)_[A-Za-z0-9_]+$/, "A Stripe publishable key (pk_live_…, pk_test_…).")
    .meta({ description: "The matching publishable key (`pk_…`), given to Stripe.js on the hosted pages.", example: "pk_test_51Q2w3E4r5T6y7U8i" }),
});
type StripeCredentials = z.infer<typeof StripeCredentials>;

/** Maps an SDK error onto the interface's errors; anything else is rethrown as it is. */
function translate(error: unknown, field: string): never {
  if (error instanceof Stripe.errors.StripeConnectionError || error instanceof Stripe.errors.StripeAPIError || error instanceof Stripe.errors.StripeRateLimitError) {
    throw new ProcessorUnavailableError(`Stripe could not be reached or failed: ${error.message}`, { cause: error });
  }
  if (error instanceof Stripe.errors.StripeAuthenticationError || error instanceof Stripe.errors.StripePermissionError) {
    throw new ProcessorRefusedError(`Stripe refused the key: ${error.message}`, "secret_key");
  }
  if (error instanceof Stripe.errors.StripeInvalidRequestError) throw new ProcessorRefusedError(`Stripe refused the request: ${error.message}`, field);
  throw error;
}

/**
 * How a Stripe PaymentIntent status reads in the interface's terms (the table in docs/payments.md).
 * An off-session charge that needs authentication comes back `requires_payment_method` with the
 * error code `authentication_required`: the charge is pending the customer's action, not declined.
 */
export function chargeStateOf(intent: Stripe.PaymentIntent): ChargeState {
  const paymentMethod = intent.payment_method;
  return { ...chargeStatusOf(intent), method: typeof paymentMethod === "string" ? paymentMethod : (paymentMethod?.id ?? null) };
}

function chargeStatusOf(intent: Stripe.PaymentIntent): ChargeState {
  const reference = intent.id;
  switch (intent.status) {
    case "succeeded":
      return { status: "succeeded", reference, receivedAtom: intent.amount_received };
    case "requires_capture":
      return { status: "requires_capture", reference, capturableAtom: intent.amount_capturable };
    case "requires_action":
      return { status: "requires_action", reference };
    case "processing":
    case "requires_confirmation":
      return { status: "processing", reference };
    case "canceled":
      return { status: "canceled", reference };
    case "requires_payment_method": {
      const error = intent.last_payment_error;
      if (error?.code === "authentication_required") return { status: "requires_action", reference };
      return { status: "declined", reference, message: error?.message ?? "The payment method was declined.", code: error?.decline_code ?? error?.code };
    }
    default:
      // A status newer than this SDK: not final, so it is treated as in flight and re-read later.
      return { status: "processing", reference };
  }
}

/** How a Stripe Refund status reads (docs/payments.md): `pending` and `requires_action` wait for Stripe; `failed` and `canceled` failed. */
export function refundStateOf(refund: Stripe.Refund): RefundState {
  if (refund.status === "succeeded") return { status: "succeeded", reference: refund.id };
  if (refund.status === "failed" || refund.status === "canceled") {
    return { status: "failed", reference: refund.id, message: `Stripe could not refund the payment (${refund.failure_reason ?? refund.status}).` };
  }
  return { status: "pending", reference: refund.id };
}

/**
 * How a Stripe Dispute reads (docs/payments.md, "Disputes"): Stripe's statuses are ours; an appeal
 * reads as the status it repeats, and a status the interface does not know (`prevented`, newer
 * ones) as null, not applied.
 */
export function disputeStateOf(dispute: Stripe.Dispute): DisputeState {
  const known: Record<string, DisputeState["status"]> = {
    warning_needs_response: "warning_needs_response",
    warning_under_review: "warning_under_review",
    warning_closed: "warning_closed",
    needs_response: "needs_response",
    appeal_needs_response: "needs_response",
    under_review: "under_review",
    appeal_under_review: "under_review",
    won: "won",
    lost: "lost",
  };
  const intent = dispute.payment_intent;
  const dueBy = dispute.evidence_details?.due_by ?? null;
  return {
    reference: dispute.id,
    paymentReference: typeof intent === "string" ? intent : (intent?.id ?? null),
    amountAtom: dispute.amount,
    currency: dispute.currency,
    reason: dispute.reason,
    status: known[dispute.status] ?? null,
    evidenceDueBy: dueBy === null ? null : new Date(dueBy * 1000),
  };
}

/** What the interface keeps of a Stripe PaymentMethod: its id and card. */
function savedMethodOf(method: Stripe.PaymentMethod): SavedPaymentMethod {
  return {
    reference: method.id,
    brand: method.card?.brand ?? null,
    last4: method.card?.last4 ?? null,
    expMonth: method.card?.exp_month ?? null,
    expYear: method.card?.exp_year ?? null,
  };
}

/**
 * How a Stripe SetupIntent status reads (docs/payments.md, "Saving a card with a SetupIntent"):
 * `succeeded` saved the method; `canceled` is final; every other status (`requires_payment_method`
 * after a decline, `requires_action`, `processing`) still waits for the customer or Stripe.
 */
export function setupStatusOf(setup: Stripe.SetupIntent): SetupState["status"] {
  if (setup.status === "succeeded") return "succeeded";
  if (setup.status === "canceled") return "canceled";
  return "pending";
}

/** A card error carries the PaymentIntent it left behind: that intent's state is the outcome. */
function outcomeOfCardError(error: unknown): ChargeState | null {
  if (error instanceof Stripe.errors.StripeCardError && error.payment_intent) return chargeStateOf(error.payment_intent);
  return null;
}

function open(connection: ProcessorConnection): PaymentProcessor {
  const stripe = client(connection.secretKey);

  async function charge(request: ChargeRequest): Promise<ChargeState> {
    try {
      if (request.reference !== null) {
        const existing = await stripe.paymentIntents.retrieve(request.reference);
        // The customer completed (or failed) the action on-session through Stripe.js: read what happened.
        if (request.actionPending && existing.status !== "requires_payment_method") return chargeStateOf(existing);
        const params: Stripe.PaymentIntentConfirmParams = {
          payment_method: request.paymentMethod,
          off_session: request.offSession || undefined,
        };
        return chargeStateOf(await stripe.paymentIntents.confirm(request.reference, params, { idempotencyKey: request.idempotencyKey }));
      }
      const params: Stripe.PaymentIntentCreateParams = {
        amount: request.amountAtom,
        currency: request.currency,
        payment_method: request.paymentMethod,
        customer: request.processorCustomer ?? undefined,
        capture_method: request.captureMethod,
        confirm: true,
        off_session: request.offSession || undefined,
        // Confirmed server-side: a method that would redirect cannot be completed here.
        automatic_payment_methods: request.offSession ? undefined : { enabled: true, allow_redirects: "never" },
        metadata: { payment_intent: request.intentId },
      };
      return chargeStateOf(await stripe.paymentIntents.create(params, { idempotencyKey: request.idempotencyKey }));
    } catch (error) {
      const outcome = outcomeOfCardError(error);
      if (outcome) return outcome;
      translate(error, "payment_method");
    }
  }

  async function prepareOnSession(input: Parameters<NonNullable<PaymentProcessor["prepareOnSession"]>>[0]): Promise<OnSessionIntent> {
    try {
      if (input.reference !== null) {
        const existing = await stripe.paymentIntents.retrieve(input.reference);
        if (existing.client_secret) return { reference: existing.id, clientSecret: existing.client_secret };
      }
      // Unconfirmed: Stripe.js confirms it in the customer's browser with the Payment Element's
      // method (and runs 3-D Secure); the outcome reaches us by webhook or by a retrieve.
      const params: Stripe.PaymentIntentCreateParams = {
        amount: input.amountAtom,
        currency: input.currency,
        customer: input.processorCustomer ?? undefined,
        automatic_payment_methods: { enabled: true },
        setup_future_usage: input.setupFutureUsage && input.processorCustomer ? input.setupFutureUsage : undefined,
        metadata: { payment_intent: input.intentId },
      };
      const intent = await stripe.paymentIntents.create(params, { idempotencyKey: input.idempotencyKey });
      if (!intent.client_secret) throw new Error("Stripe answered a PaymentIntent without a client secret.");
      return { reference: intent.id, clientSecret: intent.client_secret };
    } catch (error) {
      translate(error, "payment_intent");
    }
  }

  async function prepareSetup(input: { customerId: string; processorCustomer: string }): Promise<SetupHandle> {
    // Saved for later charges without the customer (renewals): `usage: off_session`, so Stripe
    // asks for any authentication now, in the browser, and not at the first renewal.
    const params: Stripe.SetupIntentCreateParams = {
      customer: input.processorCustomer,
      usage: "off_session",
      automatic_payment_methods: { enabled: true },
      metadata: { customer: input.customerId },
    };
    try {
      // Each update makes its own SetupIntent; the SDK keys its own retries of this one request.
      const setup = await stripe.setupIntents.create(params);
      if (!setup.client_secret) throw new Error("Stripe answered a SetupIntent without a client secret.");
      return { reference: setup.id, clientSecret: setup.client_secret };
    } catch (error) {
      translate(error, "setup_intent");
    }
  }

  async function retrieveSetup(reference: string): Promise<SetupState> {
    try {
      const setup = await stripe.setupIntents.retrieve(reference);
      const status = setupStatusOf(setup);
      const customer = typeof setup.customer === "string" ? setup.customer : (setup.customer?.id ?? null);
      const methodRef = typeof setup.payment_method === "string" ? setup.payment_method : (setup.payment_method?.id ?? null);
      const method = status === "succeeded" && methodRef !== null ? savedMethodOf(await stripe.paymentMethods.retrieve(methodRef)) : null;
      return { reference: setup.id, status, processorCustomer: customer, method };
    } catch (error) {
      translate(error, "setup_intent");
    }
  }

  return {
    name: "stripe",
    remote: true,
    clientKey: connection.publishableKey,
    prepareOnSession,
    prepareSetup,
    retrieveSetup,
    checkPaymentMethod(method) {
      if (!/^pm_[A-Za-z0-9_]+$/.test(method) || method.startsWith("pm_sandbox_")) return `'${method}' is not a Stripe payment method (pm_…).`;
      return null;
    },
    async createCustomer({ customerId, email, name }) {
      const params: Stripe.CustomerCreateParams = { email: email ?? undefined, name: name ?? undefined, metadata: { customer: customerId } };
      try {
        const customer = await stripe.customers.create(params, { idempotencyKey: `customer-${customerId}` });
        return { reference: customer.id };
      } catch (error) {
        translate(error, "customer");
      }
    },
    async savePaymentMethod({ processorCustomer, paymentMethod }) {
      const params: Stripe.PaymentMethodAttachParams = { customer: processorCustomer };
      try {
        return savedMethodOf(await stripe.paymentMethods.attach(paymentMethod, params));
      } catch (error) {
        translate(error, "processor_payment_method");
      }
    },
    async updatePaymentMethod({ reference, expMonth, expYear }) {
      const params: Stripe.PaymentMethodUpdateParams = { card: { exp_month: expMonth, exp_year: expYear } };
      try {
        return savedMethodOf(await stripe.paymentMethods.update(reference, params));
      } catch (error) {
        translate(error, "card");
      }
    },
    async retrievePaymentMethod(reference) {
      try {
        return savedMethodOf(await stripe.paymentMethods.retrieve(reference));
      } catch (error) {
        translate(error, "payment_method");
      }
    },
    charge,
    async capture({ reference, amountAtom, idempotencyKey }) {
      if (reference === null) throw new Error("A Stripe capture needs the PaymentIntent's id.");
      const params: Stripe.PaymentIntentCaptureParams = { amount_to_capture: amountAtom };
      try {
        return chargeStateOf(await stripe.paymentIntents.capture(reference, params, { idempotencyKey }));
      } catch (error) {
        translate(error, "amount_to_capture");
      }
    },
    async cancel({ reference, idempotencyKey }) {
      if (reference === null) return { status: "canceled", reference };
      const params: Stripe.PaymentIntentCancelParams = {};
      try {
        return chargeStateOf(await stripe.paymentIntents.cancel(reference, params, { idempotencyKey }));
      } catch (error) {
        translate(error, "payment_intent");
      }
    },
    async refund({ reference, amountAtom, refundId }): Promise<RefundState> {
      if (reference === null) throw new Error("A Stripe refund needs the PaymentIntent's id.");
      const params: Stripe.RefundCreateParams = { payment_intent: reference, amount: amountAtom, metadata: { refund: refundId } };
      try {
        // Keyed by our refund: sending it again (a retry, after a lost answer) makes no second refund.
        return refundStateOf(await stripe.refunds.create(params, { idempotencyKey: `${refundId}-refund` }));
      } catch (error) {
        translate(error, "amount_atom");
      }
    },
    async retrieveRefund(reference) {
      try {
        return refundStateOf(await stripe.refunds.retrieve(reference));
      } catch (error) {
        translate(error, "refund");
      }
    },
    async retrieveDispute(reference) {
      try {
        return disputeStateOf(await stripe.disputes.retrieve(reference));
      } catch (error) {
        translate(error, "dispute");
      }
    },
    async retrieve(reference) {
      try {
        return chargeStateOf(await stripe.paymentIntents.retrieve(reference));
      } catch (error) {
        translate(error, "payment_intent");
      }
    },
    parseWebhook(payload, headers) {
      const event = stripe.webhooks.constructEvent(payload, headers.get("stripe-signature") ?? "", connection.webhookSecret, WEBHOOK_TOLERANCE_SECONDS);
      const object = event.data.object as { id?: unknown };
      return { id: event.id, type: event.type, objectReference: typeof object.id === "string" ? object.id : null, payload: event };
    },
    ourReferenceOf(payload) {
      const metadata = (payload as { data?: { object?: { metadata?: Record<string, unknown> | null } } }).data?.object?.metadata;
      const ours = metadata?.payment_intent ?? metadata?.refund;
      return typeof ours === "string" ? ours : null;
    },
  };
}

export const stripeProcessor: ProcessorDefinition<StripeCredentials> = {
  name: "stripe",
  credentials: StripeCredentials,
  async connect({ credentials, livemode, webhookUrl }) {
    const mode = keyMode(credentials.secret_key);
    if (mode !== keyMode(credentials.publishable_key)) {
      throw new ProcessorRefusedError("The secret key and the publishable key must both be test keys or both live keys.", "publishable_key");
    }
    if ((mode === "live") !== livemode) {
      throw new ProcessorRefusedError(
        livemode ? "A live account takes live Stripe keys (sk_live_…/rk_live_…)." : "A sandbox account takes Stripe test keys (sk_test_…/rk_test_…).",
        "secret_key",
      );
    }
    const stripe = client(credentials.secret_key);
    try {
      const account = await stripe.accounts.retrieveCurrent();
      const params: Stripe.WebhookEndpointCreateParams = {
        url: webhookUrl,
        enabled_events: STRIPE_WEBHOOK_EVENTS,
        description: "billing-service: payments of this account",
      };
      const endpoint = await stripe.webhookEndpoints.create(params);
      if (!endpoint.secret) throw new Error("Stripe created the webhook endpoint without a signing secret.");
      return {
        processorAccount: account.id,
        livemode,
        secretKey: credentials.secret_key,
        publishableKey: credentials.publishable_key,
        webhookEndpointId: endpoint.id,
        webhookSecret: endpoint.secret,
      };
    } catch (error) {
      translate(error, "secret_key");
    }
  },
  async disconnect(connection) {
    try {
      await client(connection.secretKey).webhookEndpoints.del(connection.webhookEndpointId);
    } catch (error) {
      // Deleted at Stripe already (by hand in its dashboard): nothing left to do.
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === "resource_missing") return;
      translate(error, "processor");
    }
  },
  open,
};
