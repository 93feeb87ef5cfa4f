import type { z } from "zod";
import type { DisputeStatus } from "@/lib/disputes/statuses";

/*
 * The one interface the payment code talks to a processor through (docs/payments.md). Today's
 * sandbox simulation is one implementation (./sandbox), Stripe another (./stripe); a third lives in
 * its own folder and is listed in ./registry.ts, nothing else changes. Pure types: no server imports.
 */

export type CaptureMethod = "automatic" | "manual";

/**
 * Where a charge stands at the processor, in the interface's own terms (docs/payments.md maps
 * each processor's statuses onto these, and these onto the spec's payment-intent statuses).
 * `reference` is the processor's id of the charge (Stripe's `pi_…`), null for the sandbox.
 */
export type ChargeState = (
  | { status: "succeeded"; reference: string | null; receivedAtom: number }
  | { status: "requires_capture"; reference: string | null; capturableAtom: number }
  | { status: "requires_action"; reference: string | null }
  | { status: "processing"; reference: string | null }
  | { status: "declined"; reference: string | null; message: string; code?: string }
  | { status: "partially_funded"; reference: string | null; receivedAtom: number }
  | { status: "canceled"; reference: string | null }
) & {
  /**
   * The processor's payment method the charge is made with, as the processor reports it. An
   * on-session payment collected by the processor's own client library (Stripe.js) learns its
   * method only from this: our intent had none when the customer confirmed it in the browser.
   */
  method?: string | null;
};

/** An on-session payment prepared at the processor, for its client library to confirm in the customer's browser. */
export type OnSessionIntent = {
  /** The processor's id of the charge (Stripe's `pi_…`): our intent's `processor_reference`. */
  reference: string;
  /** What the browser confirms it with (Stripe's `client_secret`): it can confirm this charge only. */
  clientSecret: string;
};

/** A payment method to be saved in the customer's browser by the processor's client library (Stripe's SetupIntent). */
export type SetupHandle = {
  /** The processor's id of the setup (Stripe's `seti_…`). */
  reference: string;
  /** What the browser confirms it with (Stripe's `client_secret`): it can confirm this setup only. */
  clientSecret: string;
};

/**
 * A setup as the processor has it now (re-read, never the browser's word). `succeeded` carries the
 * method saved for `processorCustomer`; anything else is not final or failed, and records nothing.
 */
export type SetupState = {
  reference: string;
  status: "succeeded" | "pending" | "canceled";
  processorCustomer: string | null;
  method: SavedPaymentMethod | null;
};

export type ChargeRequest = {
  /** Derived from our payment attempt (intent id and confirmation number): a retry after a timeout or a crash sends the same key, so it never charges twice. */
  idempotencyKey: string;
  /** Our payment intent's id, given to the processor as metadata. */
  intentId: string;
  /** What is still to collect. */
  amountAtom: number;
  currency: string;
  paymentMethod: string;
  /** The customer's counterpart at the processor (createCustomer), when the intent has a customer. */
  processorCustomer: string | null;
  captureMethod: CaptureMethod;
  /** A merchant-initiated charge (renewal, dunning retry): the customer is not there to authenticate. */
  offSession: boolean;
  /** The intent waits for the customer's action with this same method: confirming again means the action was completed. */
  actionPending: boolean;
  /** The processor's charge from an earlier confirmation of this intent, if any. */
  reference: string | null;
};

export type { ChargeAttempt } from "../statuses";

export type RefundState = { status: "succeeded" | "pending"; reference: string | null } | { status: "failed"; reference: string | null; message: string };

/**
 * A dispute as the processor has it now (its webhook's object, re-read). `status` is null for a
 * status the interface does not know (newer than it): such a state is not applied.
 */
export type DisputeState = {
  reference: string;
  /** The processor's id of the disputed charge's intent (Stripe's `pi_…`): our intent's `processor_reference`. */
  paymentReference: string | null;
  amountAtom: number;
  currency: string;
  reason: string;
  status: DisputeStatus | null;
  evidenceDueBy: Date | null;
};

/** A payment method saved at the processor for a customer. */
export type SavedPaymentMethod = {
  reference: string;
  brand: string | null;
  last4: string | null;
  expMonth: number | null;
  expYear: number | null;
};

/** A verified processor webhook, reduced to what the service applies. */
export type ProcessorEvent = {
  id: string;
  type: string;
  /** The processor's id of the object the event is about; the job re-reads it (order-independent). */
  objectReference: string | null;
  payload: unknown;
};

/** Thrown by an implementation for an answer the caller may retry with the same idempotency key (network, 5xx, rate limit). */
export class ProcessorUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ProcessorUnavailableError";
  }
}

/** Thrown for a request the processor refused for a reason the client can fix (bad key, bad method): a 422 naming `field`. */
export class ProcessorRefusedError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
    this.name = "ProcessorRefusedError";
  }
}

/** One connected processor, bound to one account's credentials. */
export interface PaymentProcessor {
  readonly name: string;
  /**
   * Whether its calls cross the network (Stripe): such calls are never made while one of our
   * transactions is open. The sandbox decides in process, inside the intent's transaction.
   */
  readonly remote: boolean;
  /** The key the processor's client library is opened with in the customer's browser (Stripe's publishable key), when it has one. */
  readonly clientKey?: string;
  /** Null when `method` is one of this processor's payment methods and fits `captureMethod`; otherwise why not. */
  checkPaymentMethod(method: string, captureMethod: CaptureMethod): string | null;
  createCustomer(input: { customerId: string; email: string | null; name: string | null }): Promise<{ reference: string }>;
  savePaymentMethod(input: { processorCustomer: string; paymentMethod: string }): Promise<SavedPaymentMethod>;
  /** Changes a saved card's expiry (Stripe's PaymentMethod update) and answers the card as the processor now has it. */
  updatePaymentMethod(input: { reference: string; expMonth?: number; expYear?: number }): Promise<SavedPaymentMethod>;
  /** The saved method as the processor has it now (its webhook's object, re-read); absent where nothing changes a card behind our back (the sandbox). */
  retrievePaymentMethod?(reference: string): Promise<SavedPaymentMethod>;
  /** Confirms a charge, on-session or off-session. */
  charge(request: ChargeRequest): Promise<ChargeState>;
  capture(input: { reference: string | null; amountAtom: number; idempotencyKey: string }): Promise<ChargeState>;
  cancel(input: { reference: string | null; idempotencyKey: string }): Promise<ChargeState>;
  /** Refunds (part of) a charge; `refundId` (ours) is given to the processor as metadata, and keys the request. */
  refund(input: { reference: string | null; paymentMethod: string; amountAtom: number; refundId: string }): Promise<RefundState>;
  /** The refund as the processor has it now (its webhook's object, re-read). */
  retrieveRefund(reference: string): Promise<RefundState>;
  /** The dispute as the processor has it now (the sandbox has no disputes: it throws). */
  retrieveDispute(reference: string): Promise<DisputeState>;
  /** The charge as the processor has it now. */
  retrieve(reference: string): Promise<ChargeState>;
  /**
   * Present when the processor collects on-session payments in the customer's browser with its own
   * client library (Stripe.js and its Payment Element): makes the processor's charge unconfirmed,
   * for the browser to confirm (3-D Secure included). `reference` is the charge made earlier for
   * the same intent: its client secret is answered again, no second charge is made.
   */
  prepareOnSession?(input: {
    intentId: string;
    idempotencyKey: string;
    amountAtom: number;
    currency: string;
    processorCustomer: string | null;
    reference: string | null;
    /**
     * Save the method the customer enters for later off-session charges (Stripe's
     * `setup_future_usage: off_session`; needs `processorCustomer`): the processor attaches it to
     * that customer when the payment succeeds, and `ChargeState.method` is then the saved method.
     */
    setupFutureUsage?: "off_session";
  }): Promise<OnSessionIntent>;
  /**
   * Present when the processor saves payment methods in the customer's browser with its client
   * library (Stripe's SetupIntent, `usage: off_session`, confirmed by `confirmSetup`): makes the
   * setup for the customer's counterpart at the processor. `customerId` (ours) is given to the
   * processor as metadata. The sandbox has none: its methods are chosen, not entered.
   */
  prepareSetup?(input: { customerId: string; processorCustomer: string }): Promise<SetupHandle>;
  /** The setup as the processor has it now (present with prepareSetup). */
  retrieveSetup?(reference: string): Promise<SetupState>;
  /** Verifies a webhook's signature (throws when it does not verify) and parses it. */
  parseWebhook(payload: string, headers: Headers): ProcessorEvent;
  /** Our id that the event's object carries (the metadata we gave it: our payment intent's or refund's id), or null. */
  ourReferenceOf(event: ProcessorEvent["payload"]): string | null;
}

/** What connecting a processor found and made, stored (secrets encrypted) in payment_processors. */
export type ProcessorConnection = {
  processorAccount: string;
  livemode: boolean;
  secretKey: string;
  publishableKey: string;
  webhookEndpointId: string;
  webhookSecret: string;
};

/** A processor kind, as the registry lists it. */
export interface ProcessorDefinition<Credentials> {
  readonly name: string;
  /** The `PUT /payment-processor` body for this processor (without `processor`). */
  readonly credentials: z.ZodObject<z.ZodRawShape, z.core.$strip> & z.ZodType<Credentials>;
  /** Checks the credentials at the processor and creates the webhook endpoint at `webhookUrl`. */
  connect(input: { credentials: Credentials; livemode: boolean; webhookUrl: string }): Promise<ProcessorConnection>;
  /** Deletes the webhook endpoint connect created (an endpoint already gone is not an error). */
  disconnect(connection: ProcessorConnection): Promise<void>;
  open(connection: ProcessorConnection): PaymentProcessor;
}
