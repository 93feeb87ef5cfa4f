import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createHash, randomBytes } from "node:crypto";
import Stripe from "stripe";
import type { Client } from "./api";

/*
 * A stateful Stripe stand-in for tests (node:http on loopback): the endpoints the adapter in
 * lib/payments/processors/stripe uses, Stripe's test payment methods, Idempotency-Key semantics,
 * disputes (opened, evidence submitted, closed won or lost through its control endpoints), and
 * signed webhook delivery (generateTestHeaderString) with switches to duplicate, hold and reorder
 * deliveries (for every endpoint, or for one endpoint only: one merchant's), and to answer 500. Not a Stripe mock: it keeps objects and derives statuses
 * from the card, as Stripe's test mode does (localstripe is the model). Request bodies are read
 * as the SDK's own parameter types.
 */

/** What a test card does on confirmation (Stripe's test payment methods). */
type CardBehaviour = "succeeds" | "declined" | "insufficient_funds" | "authentication_required" | "three_d_secure_required";

const TEST_CARDS: Record<string, { behaviour: CardBehaviour; brand: string; last4: string }> = {
  pm_card_visa: { behaviour: "succeeds", brand: "visa", last4: "4242" },
  pm_card_mastercard: { behaviour: "succeeds", brand: "mastercard", last4: "4444" },
  pm_card_chargeDeclined: { behaviour: "declined", brand: "visa", last4: "0002" },
  pm_card_chargeDeclinedInsufficientFunds: { behaviour: "insufficient_funds", brand: "visa", last4: "9995" },
  pm_card_authenticationRequired: { behaviour: "authentication_required", brand: "visa", last4: "3184" },
  pm_card_threeDSecure2Required: { behaviour: "three_d_secure_required", brand: "visa", last4: "3220" },
};

/** What the card updater changes on a saved card (Stripe's `payment_method.automatically_updated`). */
export type CardUpdate = { exp_month?: number; exp_year?: number; last4?: string };

/** What the card holder disputes: all of the charge by default, as `fraudulent`. */
export type DisputeInput = { amount?: number; reason?: string };

type StoredMethod = { object: Stripe.PaymentMethod; behaviour: CardBehaviour };
type Json = Record<string, unknown>;

/** `status` 0: not answered yet; `hanging`: held by a `hang` fault until `release()`. */
export type RecordedRequest = { method: string; path: string; idempotencyKey: string | null; status: number; replayed: boolean; hanging?: boolean };
/** Delivery switches of one webhook endpoint (hold until its flush, duplicate, reorder its flush, drop). */
export type EndpointDelivery = { hold: boolean; duplicate: boolean; reorder: boolean; drop: boolean };
/** One delivery of an event to one webhook endpoint (every connected account's endpoint hears the stand-in's events). */
export type Delivery = { eventId: string; endpointId: string; type: string; status: number | null };

/**
 * A fault the next `count` matching requests meet: their path, and with `body` their form-encoded
 * body (one test's requests only, by a parameter of its own). `hang`: held unanswered until
 * `release()`, then carried out as usual (`status` unused). `afterProcessing`: the request is
 * carried out, then its answer is lost (a 500 on the wire): only the idempotency key keeps a retry
 * from doing it twice.
 */
export type Fault = { path: RegExp; body?: RegExp; status: number; count: number; afterProcessing?: boolean; hang?: boolean };

export type StripeStandIn = {
  url: string;
  /** The stand-in's account for any accepted key. */
  accountId: string;
  requests: RecordedRequest[];
  deliveries: Delivery[];
  paymentIntents: Map<string, Stripe.PaymentIntent>;
  setupIntents: Map<string, Stripe.SetupIntent>;
  /** Charges that moved money (succeeded or captured PaymentIntents), in order. */
  charges: string[];
  webhookEndpoints: Map<string, Stripe.WebhookEndpoint>;
  /** Adds a fault (answer `status` to the next `count` requests whose path matches; with `hang`, hold them unanswered until `release()`). */
  fault(fault: Fault): void;
  /** Delivery switches: hold (queue until flush), duplicate (each event twice), reorder (a flush delivers newest first), drop (never delivered: a lost webhook). */
  delivery: { hold: boolean; duplicate: boolean; reorder: boolean; drop: boolean };
  /** Delivers held events; resolves when every delivery so far has been answered. */
  flush(): Promise<void>;
  /** Lets the requests a `hang` fault holds go on (carried out and answered as usual). */
  release(): void;
  refunds: Map<string, Stripe.Refund>;
  /** The bank settles a pending refund (succeeded, or failed). */
  settleRefund(refundId: string, succeed: boolean): Promise<void>;
  /** The customer completes (or fails) the 3-D Secure challenge of a PaymentIntent in requires_action. */
  completeAction(paymentIntentId: string, succeed: boolean): Promise<void>;
  disputes: Map<string, Stripe.Dispute>;
  /** The card holder disputes a succeeded PaymentIntent's charge (charge.dispute.created, needs_response); answers the dispute. */
  openDispute(paymentIntentId: string, input?: DisputeInput): Promise<Stripe.Dispute>;
  /** The card updater changes a saved card (payment_method.automatically_updated). */
  cardUpdater(paymentMethodId: string, update: CardUpdate): Promise<void>;
  /** The merchant submits evidence at Stripe: needs_response → under_review (charge.dispute.updated). */
  submitDisputeEvidence(disputeId: string): Promise<void>;
  /** The bank decides: won or lost (charge.dispute.closed; evidence submitted first if it was not, as charge.dispute.updated). */
  closeDispute(disputeId: string, outcome: "won" | "lost"): Promise<void>;
  /** Signs `payload` as the endpoint's Stripe-Signature header would (optionally at another time). */
  sign(payload: string, endpointId: string, timestamp?: number): string;
  close(): Promise<void>;
};

const signer = new Stripe("sk_test_stand_in_signer");

/** Stripe's form encoding (`a[b][0]=c`) into nested objects and arrays. */
export function parseForm(body: string): Json {
  const root: Json = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const parts = rawKey.replace(/\]/g, "").split("[");
    let node: Json | unknown[] = root;
    parts.forEach((part, index) => {
      const last = index === parts.length - 1;
      const container = node as Record<string, unknown>;
      if (last) {
        container[part] = value;
        return;
      }
      const nextIsIndex = /^\d+$/.test(parts[index + 1]!);
      container[part] ??= nextIsIndex ? [] : {};
      node = container[part] as Json;
    });
  }
  return root;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;
const now = () => Math.floor(Date.now() / 1000);

class StripeError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
  ) {
    super(String((body.error as Json | undefined)?.message ?? status));
  }
}

const invalid = (message: string, extra: Json = {}) => new StripeError(400, { error: { type: "invalid_request_error", message, ...extra } });
const missing = (what: string, key: string) => new StripeError(404, { error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${what}: '${key}'`, param: "id" } });

export async function startStripeStandIn(): Promise<StripeStandIn> {
  const accountId = id("acct");
  const customers = new Map<string, Json>();
  const methods = new Map<string, StoredMethod>();
  const paymentIntents = new Map<string, Stripe.PaymentIntent>();
  const behaviours = new Map<string, CardBehaviour>();
  const setupIntents = new Map<string, Stripe.SetupIntent>();
  const webhookEndpoints = new Map<string, Stripe.WebhookEndpoint>();
  const idempotency = new Map<string, { fingerprint: string; status: number; body: Json }>();
  const requests: RecordedRequest[] = [];
  const deliveries: Delivery[] = [];
  const charges: string[] = [];
  const faults: Fault[] = [];
  const held: Stripe.Event[] = [];
  const hanging: Array<() => void> = [];
  const refunds = new Map<string, Stripe.Refund>();
  const disputes = new Map<string, Stripe.Dispute>();
  const inFlight = new Set<Promise<void>>();
  const delivery = { hold: false, duplicate: false, reorder: false, drop: false };
  const endpointDelivery = new Map<string, EndpointDelivery>();
  const endpointHeld: { endpointId: string; event: Stripe.Event }[] = [];
  let livemode = false;
  /** How long every API request waits before it is answered (Stripe's own latency, for benchmarks). */
  let latencyMs = 0;

  function deliverNow(event: Stripe.Event): void {
    for (const endpoint of webhookEndpoints.values()) {
      if (!endpoint.enabled_events.includes(event.type) && !endpoint.enabled_events.includes("*")) continue;
      // One endpoint's own switches (one merchant's), which leave every other endpoint's deliveries alone.
      const own = endpointDelivery.get(endpoint.id);
      if (own?.drop) continue;
      for (let copy = own?.duplicate ? 2 : 1; copy > 0; copy -= 1) {
        if (own?.hold) endpointHeld.push({ endpointId: endpoint.id, event });
        else deliverTo(endpoint, event);
      }
    }
  }

  function deliverTo(endpoint: Stripe.WebhookEndpoint, event: Stripe.Event): void {
    const payload = JSON.stringify(event);
    const header = signer.webhooks.generateTestHeaderString({ payload, secret: endpoint.secret! });
    const record: Delivery = { eventId: event.id, endpointId: endpoint.id, type: event.type, status: null };
    deliveries.push(record);
    const sent = fetch(endpoint.url, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": header }, body: payload })
      .then(async (response) => {
        record.status = response.status;
        await response.arrayBuffer();
      })
      .catch(() => {
        record.status = 0;
      })
      .finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  }

  function emit(type: string, object: Json): void {
    const event = {
      id: id("evt"),
      object: "event",
      api_version: Stripe.API_VERSION,
      created: now(),
      livemode,
      pending_webhooks: webhookEndpoints.size,
      request: { id: null, idempotency_key: null },
      type,
      // A snapshot: later changes of the object do not show in an event already sent.
      data: { object: structuredClone(object) },
    } as unknown as Stripe.Event;
    // A lost webhook: Stripe made the event, nobody ever hears of it.
    if (delivery.drop) return;
    const copies = delivery.duplicate ? [event, event] : [event];
    for (const copy of copies) {
      if (delivery.hold) held.push(copy);
      else deliverNow(copy);
    }
  }

  function customerOf(key: string | undefined): void {
    if (key !== undefined && !customers.has(key)) throw missing("customer", key);
  }

  /** A test token (pm_card_visa) or a saved method: what it does and what it looks like. */
  function methodOf(key: string): StoredMethod {
    const saved = methods.get(key);
    if (saved) return saved;
    const card = TEST_CARDS[key];
    if (!card) throw missing("PaymentMethod", key);
    return {
      behaviour: card.behaviour,
      object: {
        id: key,
        object: "payment_method",
        type: "card",
        customer: null,
        card: { brand: card.brand, last4: card.last4, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3 },
        created: now(),
        livemode,
        metadata: {},
      } as unknown as Stripe.PaymentMethod,
    };
  }

  /**
   * As Stripe's: a PaymentIntent with `setup_future_usage` and a customer saves its method for that
   * customer when it succeeds (a test token becomes a new `pm_…`), and names the saved method.
   */
  function saveForFuture(intent: Stripe.PaymentIntent): void {
    const key = typeof intent.payment_method === "string" ? intent.payment_method : null;
    if (!intent.setup_future_usage || typeof intent.customer !== "string" || key === null) return;
    const source = methodOf(key);
    if (source.object.customer === intent.customer) return;
    const saved = { ...structuredClone(source.object), id: TEST_CARDS[key] ? id("pm") : source.object.id, customer: intent.customer } as Stripe.PaymentMethod;
    methods.set(saved.id, { object: saved, behaviour: source.behaviour });
    intent.payment_method = saved.id;
    emit("payment_method.attached", saved as unknown as Json);
  }

  function succeed(intent: Stripe.PaymentIntent): void {
    saveForFuture(intent);
    intent.last_payment_error = null;
    intent.next_action = null;
    if (intent.capture_method === "manual") {
      intent.status = "requires_capture";
      intent.amount_capturable = intent.amount;
      emit("payment_intent.amount_capturable_updated", intent as unknown as Json);
      return;
    }
    intent.status = "succeeded";
    intent.amount_received = intent.amount;
    charges.push(intent.id);
    emit("payment_intent.succeeded", intent as unknown as Json);
  }

  function decline(intent: Stripe.PaymentIntent, code: string, declineCode: string | undefined, message: string): never {
    intent.status = "requires_payment_method";
    const error = { type: "card_error", code, decline_code: declineCode, message, payment_method: { id: intent.payment_method } };
    intent.last_payment_error = error as unknown as Stripe.PaymentIntent.LastPaymentError;
    intent.payment_method = null;
    emit("payment_intent.payment_failed", intent as unknown as Json);
    throw new StripeError(402, { error: { ...error, payment_intent: structuredClone(intent) } });
  }

  function confirm(intent: Stripe.PaymentIntent, params: Stripe.PaymentIntentConfirmParams): void {
    if (!["requires_payment_method", "requires_confirmation", "requires_action"].includes(intent.status)) {
      throw invalid(`This PaymentIntent's status is ${intent.status}; it cannot be confirmed.`, { code: "payment_intent_unexpected_state" });
    }
    const methodKey = typeof params.payment_method === "string" ? params.payment_method : (intent.payment_method as string | null);
    if (!methodKey) throw invalid("You cannot confirm this PaymentIntent because it's missing a payment method.", { param: "payment_method" });
    const method = methodOf(methodKey);
    if (params.off_session && method.object.customer !== null && method.object.customer !== intent.customer) {
      throw invalid("The provided PaymentMethod belongs to another customer.", { param: "payment_method" });
    }
    intent.payment_method = method.object.id;
    behaviours.set(intent.id, method.behaviour);
    const offSession = params.off_session === true || (params.off_session as unknown) === "true";
    switch (method.behaviour) {
      case "succeeds":
        return succeed(intent);
      case "declined":
        return decline(intent, "card_declined", "generic_decline", "Your card was declined.");
      case "insufficient_funds":
        return decline(intent, "card_declined", "insufficient_funds", "Your card has insufficient funds.");
      case "authentication_required":
      case "three_d_secure_required":
        if (offSession) return decline(intent, "authentication_required", "authentication_required", "Your card was declined. This transaction requires authentication.");
        intent.status = "requires_action";
        intent.next_action = { type: "use_stripe_sdk", use_stripe_sdk: {} } as unknown as Stripe.PaymentIntent.NextAction;
        emit("payment_intent.requires_action", intent as unknown as Json);
        return;
    }
  }

  /**
   * As Stripe's: a card saved for the SetupIntent's customer (a test token makes a new `pm_…`
   * attached to that customer), setup_intent.succeeded; a declined card leaves it
   * requires_payment_method with `last_setup_error` (setup_intent.setup_failed); a 3-D Secure card
   * asks for the action first (completeSetupAction). A SetupIntent needs no authentication later:
   * `authentication_required` cards save as they are (their off-session charges ask for it).
   */
  function confirmSetup(setup: Stripe.SetupIntent, methodKey: string): void {
    if (!["requires_payment_method", "requires_confirmation", "requires_action"].includes(setup.status)) {
      throw invalid(`This SetupIntent's status is ${setup.status}; it cannot be confirmed.`, { code: "setup_intent_unexpected_state" });
    }
    const source = methodOf(methodKey);
    if (source.behaviour === "declined" || source.behaviour === "insufficient_funds") {
      setup.status = "requires_payment_method";
      const error = { type: "card_error", code: "card_declined", decline_code: source.behaviour === "declined" ? "generic_decline" : "insufficient_funds", message: "Your card was declined." };
      setup.last_setup_error = error as unknown as Stripe.SetupIntent.LastSetupError;
      emit("setup_intent.setup_failed", setup as unknown as Json);
      throw new StripeError(402, { error: { ...error, setup_intent: structuredClone(setup) } });
    }
    const customer = typeof setup.customer === "string" ? setup.customer : null;
    const saved = { ...structuredClone(source.object), id: TEST_CARDS[methodKey] ? id("pm") : source.object.id, customer } as Stripe.PaymentMethod;
    methods.set(saved.id, { object: saved, behaviour: source.behaviour });
    setup.payment_method = saved.id;
    setup.last_setup_error = null;
    if (source.behaviour === "three_d_secure_required") {
      setup.status = "requires_action";
      setup.next_action = { type: "use_stripe_sdk", use_stripe_sdk: {} } as unknown as Stripe.SetupIntent.NextAction;
      emit("setup_intent.requires_action", setup as unknown as Json);
      return;
    }
    succeedSetup(setup);
  }

  function succeedSetup(setup: Stripe.SetupIntent): void {
    setup.status = "succeeded";
    setup.next_action = null;
    if (setup.customer) emit("payment_method.attached", methods.get(setup.payment_method as string)!.object as unknown as Json);
    emit("setup_intent.succeeded", setup as unknown as Json);
  }

  function intentOf(key: string): Stripe.PaymentIntent {
    const intent = paymentIntents.get(key);
    if (!intent) throw missing("payment_intent", key);
    return intent;
  }

  function route(method: string, path: string, body: Json): Json {
    let match: RegExpExecArray | null;
    if (method === "GET" && path === "/v1/account") {
      return { id: accountId, object: "account", charges_enabled: true, country: "US", default_currency: "usd" };
    }
    if (method === "POST" && path === "/v1/customers") {
      const params = body as Stripe.CustomerCreateParams;
      const customer = { id: id("cus"), object: "customer", email: params.email ?? null, name: params.name ?? null, metadata: params.metadata ?? {}, created: now(), livemode };
      customers.set(customer.id, customer);
      return customer;
    }
    if (method === "POST" && (match = /^\/v1\/payment_methods\/([^/]+)\/attach$/.exec(path))) {
      const params = body as unknown as Stripe.PaymentMethodAttachParams;
      customerOf(params.customer);
      const source = methodOf(match[1]!);
      // Attaching a test token makes a new saved method, as in Stripe's test mode.
      const saved = { ...structuredClone(source.object), id: TEST_CARDS[match[1]!] ? id("pm") : source.object.id, customer: params.customer } as Stripe.PaymentMethod;
      methods.set(saved.id, { object: saved, behaviour: source.behaviour });
      emit("payment_method.attached", saved as unknown as Json);
      return saved as unknown as Json;
    }
    if (method === "GET" && (match = /^\/v1\/payment_methods\/([^/]+)$/.exec(path))) return methodOf(match[1]!).object as unknown as Json;
    if (method === "POST" && (match = /^\/v1\/payment_methods\/([^/]+)$/.exec(path))) {
      // As Stripe's: only a saved method (attached to a customer) is updated; a card's expiry and metadata.
      const params = body as unknown as Stripe.PaymentMethodUpdateParams;
      const saved = methods.get(match[1]!);
      if (!saved || saved.object.customer === null) throw invalid("You must save this PaymentMethod to a customer before you can update it.", { param: "payment_method" });
      const card = saved.object.card!;
      const month = params.card?.exp_month === undefined ? card.exp_month : Number(params.card.exp_month);
      const year = params.card?.exp_year === undefined ? card.exp_year : Number(params.card.exp_year);
      if (!Number.isInteger(month) || month < 1 || month > 12) throw invalid("Your card's expiration month is invalid.", { param: "card[exp_month]", code: "invalid_expiry_month" });
      if (!Number.isInteger(year) || year < new Date().getUTCFullYear()) throw invalid("Your card's expiration year is invalid.", { param: "card[exp_year]", code: "invalid_expiry_year" });
      card.exp_month = month;
      card.exp_year = year;
      if (params.metadata) saved.object.metadata = { ...saved.object.metadata, ...(params.metadata as Record<string, string>) };
      emit("payment_method.updated", saved.object as unknown as Json);
      return saved.object as unknown as Json;
    }
    if (method === "POST" && path === "/v1/setup_intents") {
      const params = body as unknown as Stripe.SetupIntentCreateParams;
      customerOf(params.customer);
      const setupId = id("seti");
      const setup = {
        id: setupId,
        object: "setup_intent",
        customer: params.customer ?? null,
        payment_method: null,
        usage: params.usage ?? "off_session",
        status: "requires_payment_method",
        last_setup_error: null,
        next_action: null,
        metadata: params.metadata ?? {},
        // As Stripe's: the SetupIntent's id, then the secret (Stripe.js reads the id from it).
        client_secret: `${setupId}_secret_${randomBytes(8).toString("hex")}`,
        created: now(),
        livemode,
      } as unknown as Stripe.SetupIntent;
      setupIntents.set(setup.id, setup);
      emit("setup_intent.created", setup as unknown as Json);
      if (String(params.confirm) === "true" && typeof params.payment_method === "string") confirmSetup(setup, params.payment_method);
      return setup as unknown as Json;
    }
    if ((match = /^\/v1\/setup_intents\/([^/]+)(?:\/(confirm))?$/.exec(path))) {
      const setup = setupIntents.get(match[1]!);
      if (!setup) throw missing("setup_intent", match[1]!);
      if (method === "GET" && !match[2]) return setup as unknown as Json;
      if (method === "POST" && match[2] === "confirm") {
        const params = body as Stripe.SetupIntentConfirmParams;
        if (typeof params.payment_method !== "string") throw invalid("You cannot confirm this SetupIntent because it's missing a payment method.", { param: "payment_method" });
        confirmSetup(setup, params.payment_method);
        return setup as unknown as Json;
      }
    }
    if (method === "POST" && path === "/v1/payment_intents") {
      const params = body as unknown as Stripe.PaymentIntentCreateParams;
      customerOf(params.customer);
      const amount = Number(params.amount);
      if (!Number.isInteger(amount) || amount < 1) throw invalid("Invalid positive integer", { param: "amount" });
      const intentId = id("pi");
      const intent = {
        id: intentId,
        object: "payment_intent",
        amount,
        amount_capturable: 0,
        amount_received: 0,
        currency: params.currency,
        customer: params.customer ?? null,
        capture_method: params.capture_method ?? "automatic_async",
        setup_future_usage: params.setup_future_usage ?? null,
        payment_method: params.payment_method ?? null,
        status: params.payment_method ? "requires_confirmation" : "requires_payment_method",
        last_payment_error: null,
        next_action: null,
        metadata: params.metadata ?? {},
        // As Stripe's: the intent's id, then the secret (Stripe.js reads the id from it).
        client_secret: `${intentId}_secret_${randomBytes(8).toString("hex")}`,
        created: now(),
        livemode,
      } as unknown as Stripe.PaymentIntent;
      paymentIntents.set(intent.id, intent);
      emit("payment_intent.created", intent as unknown as Json);
      if (String(params.confirm) === "true") confirm(intent, { payment_method: params.payment_method, off_session: params.off_session === undefined ? undefined : String(params.off_session) === "true" });
      return intent as unknown as Json;
    }
    if ((match = /^\/v1\/payment_intents\/([^/]+)(?:\/(confirm|capture|cancel))?$/.exec(path))) {
      const intent = intentOf(match[1]!);
      const action = match[2];
      if (method === "GET" && !action) return intent as unknown as Json;
      if (method === "POST" && action === "confirm") {
        const params = body as Stripe.PaymentIntentConfirmParams;
        confirm(intent, { payment_method: params.payment_method, off_session: params.off_session === undefined ? undefined : String(params.off_session) === "true" });
        return intent as unknown as Json;
      }
      if (method === "POST" && action === "capture") {
        const params = body as Stripe.PaymentIntentCaptureParams;
        if (intent.status !== "requires_capture") throw invalid(`This PaymentIntent could not be captured because it has a status of ${intent.status}.`, { code: "payment_intent_unexpected_state" });
        const amount = params.amount_to_capture === undefined ? intent.amount_capturable : Number(params.amount_to_capture);
        if (amount > intent.amount_capturable) throw invalid("The amount to capture exceeds the capturable amount.", { param: "amount_to_capture" });
        intent.amount_received = amount;
        intent.amount_capturable = 0;
        intent.status = "succeeded";
        charges.push(intent.id);
        emit("payment_intent.succeeded", intent as unknown as Json);
        return intent as unknown as Json;
      }
      if (method === "POST" && action === "cancel") {
        if (intent.status === "succeeded" || intent.status === "canceled") throw invalid(`You cannot cancel this PaymentIntent because it has a status of ${intent.status}.`, { code: "payment_intent_unexpected_state" });
        intent.status = "canceled";
        intent.amount_capturable = 0;
        emit("payment_intent.canceled", intent as unknown as Json);
        return intent as unknown as Json;
      }
    }
    if (method === "POST" && path === "/v1/refunds") {
      const params = body as Stripe.RefundCreateParams;
      const intent = intentOf(String(params.payment_intent));
      const amount = params.amount === undefined ? intent.amount_received : Number(params.amount);
      const refunded = [...refunds.values()].filter((refund) => refund.payment_intent === intent.id && refund.status !== "failed").reduce((sum, refund) => sum + refund.amount, 0);
      if (intent.status !== "succeeded" || amount + refunded > intent.amount_received) throw invalid("The refund exceeds what was charged.", { param: "amount" });
      // As Stripe's: created pending, settled later (settleRefund), each change an event.
      const refund = {
        id: id("re"),
        object: "refund",
        amount,
        currency: intent.currency,
        payment_intent: intent.id,
        status: "pending",
        failure_reason: null,
        metadata: (params.metadata ?? {}) as Stripe.Metadata,
        created: now(),
      } as unknown as Stripe.Refund;
      refunds.set(refund.id, refund);
      emit("refund.created", refund as unknown as Json);
      return refund as unknown as Json;
    }
    if (method === "GET" && (match = /^\/v1\/refunds\/([^/]+)$/.exec(path))) {
      const refund = refunds.get(match[1]!);
      if (!refund) throw missing("refund", match[1]!);
      return refund as unknown as Json;
    }
    if (method === "GET" && (match = /^\/v1\/disputes\/([^/]+)$/.exec(path))) {
      const dispute = disputes.get(match[1]!);
      if (!dispute) throw missing("dispute", match[1]!);
      return dispute as unknown as Json;
    }
    if (method === "POST" && path === "/v1/webhook_endpoints") {
      const params = body as unknown as Stripe.WebhookEndpointCreateParams;
      const endpoint = {
        id: id("we"),
        object: "webhook_endpoint",
        url: params.url,
        enabled_events: params.enabled_events,
        description: params.description ?? null,
        secret: `whsec_${randomBytes(24).toString("hex")}`,
        status: "enabled",
        created: now(),
        livemode,
      } as unknown as Stripe.WebhookEndpoint;
      webhookEndpoints.set(endpoint.id, endpoint);
      return endpoint as unknown as Json;
    }
    if (method === "DELETE" && (match = /^\/v1\/webhook_endpoints\/([^/]+)$/.exec(path))) {
      if (!webhookEndpoints.delete(match[1]!)) throw missing("webhook_endpoint", match[1]!);
      return { id: match[1], object: "webhook_endpoint", deleted: true };
    }
    throw new StripeError(404, { error: { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` } });
  }

  /**
   * Stripe.js's own calls from the customer's browser: the publishable key (`key`) and the
   * intent's `client_secret` in the parameters, for reading and confirming that one PaymentIntent
   * or SetupIntent only, as Stripe allows. Answers whether the request is one.
   */
  function authenticateBrowser(method: string, path: string, params: Json): boolean {
    const key = typeof params.key === "string" ? params.key : "";
    const mode = /^pk_(live|test)_/.exec(key)?.[1];
    if (!mode) return false;
    const match = /^\/v1\/(payment_intents|setup_intents)\/([^/]+)(\/confirm)?$/.exec(path);
    if (!match || (method === "GET") === Boolean(match[3])) {
      throw new StripeError(401, { error: { type: "invalid_request_error", message: "This API call cannot be made with a publishable API key." } });
    }
    const intent = match[1] === "payment_intents" ? paymentIntents.get(match[2]!) : setupIntents.get(match[2]!);
    if (!intent || params.client_secret !== intent.client_secret) throw missing(match[1] === "payment_intents" ? "payment_intent" : "setup_intent", match[2]!);
    livemode = mode === "live";
    return true;
  }

  function authenticate(request: IncomingMessage): void {
    const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
    const mode = /^(?:sk|rk)_(live|test)_/.exec(key)?.[1];
    // A key with "revoked" in it stands for one Stripe no longer accepts.
    if (!mode || key.includes("revoked")) {
      throw new StripeError(401, { error: { type: "invalid_request_error", message: `Invalid API Key provided: ${key.slice(0, 8)}****` } });
    }
    livemode = mode === "live";
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const method = request.method ?? "GET";
    const path = new URL(request.url ?? "/", "http://stand-in").pathname;
    const idempotencyKey = (request.headers["idempotency-key"] as string | undefined) ?? null;
    const record: RecordedRequest = { method, path, idempotencyKey, status: 0, replayed: false };
    requests.push(record);
    // Stripe.js calls from the page's origin (the e2e's fake Stripe.js, as the real one calls api.stripe.com).
    const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "content-type, authorization", "access-control-allow-methods": "GET, POST" };
    const answer = (status: number, body: Json, headers: Record<string, string> = {}) => {
      record.status = status;
      response.writeHead(status, { "content-type": "application/json", "request-id": id("req"), ...cors, ...headers });
      response.end(JSON.stringify(body));
    };
    if (method === "OPTIONS") {
      response.writeHead(204, cors);
      return void response.end();
    }
    if (path.startsWith("/_stand-in/")) return control(method, path, raw, answer);
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    let fault = faults.find((candidate) => candidate.count > 0 && candidate.path.test(path) && (candidate.body?.test(raw) ?? true));
    if (fault?.hang) {
      fault.count -= 1;
      fault = undefined;
      record.hanging = true;
      await new Promise<void>((resolve) => hanging.push(resolve));
      record.hanging = false;
    }
    if (fault && !fault.afterProcessing) {
      fault.count -= 1;
      return answer(fault.status, { error: { type: "api_error", message: "The stand-in was told to fail this request." } });
    }
    try {
      const query = Object.fromEntries(new URL(request.url ?? "/", "http://stand-in").searchParams);
      if (!authenticateBrowser(method, path, method === "GET" ? query : parseForm(raw))) authenticate(request);
      const fingerprint = createHash("sha256").update(`${method} ${path} ${raw}`).digest("hex");
      const previous = idempotencyKey && method === "POST" ? idempotency.get(idempotencyKey) : undefined;
      let status = 200;
      let body: Json;
      if (previous) {
        if (previous.fingerprint !== fingerprint) {
          throw invalid(`Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`, { type: "idempotency_error" });
        }
        record.replayed = true;
        status = previous.status;
        body = previous.body;
      } else {
        try {
          body = route(method, path, parseForm(raw));
        } catch (error) {
          if (!(error instanceof StripeError)) throw error;
          status = error.status;
          body = error.body;
        }
        if (idempotencyKey && method === "POST") idempotency.set(idempotencyKey, { fingerprint, status, body });
      }
      if (fault?.afterProcessing) {
        fault.count -= 1;
        return answer(fault.status, { error: { type: "api_error", message: "The stand-in lost this answer." } });
      }
      return answer(status, body, record.replayed ? { "idempotent-replayed": "true" } : {});
    } catch (error) {
      if (error instanceof StripeError) return answer(error.status, error.body);
      return answer(500, { error: { type: "api_error", message: String(error) } });
    }
  }

  /**
   * The stand-in's own endpoints (not Stripe's), for tests in other processes than the one that
   * started it: the api project's stand-in runs in its global set-up (stripeStandInClient below).
   */
  async function control(method: string, path: string, raw: string, answer: (status: number, body: Json) => void): Promise<void> {
    const body = raw ? (JSON.parse(raw) as Json) : {};
    let match: RegExpExecArray | null;
    if (method === "GET" && path === "/_stand-in/state") {
      return answer(200, {
        accountId,
        charges,
        requests,
        deliveries,
        paymentIntents: [...paymentIntents.values()],
        setupIntents: [...setupIntents.values()],
        refunds: [...refunds.values()],
        disputes: [...disputes.values()],
        webhookEndpoints: [...webhookEndpoints.values()],
      });
    }
    if (method === "POST" && path === "/_stand-in/fault") {
      faults.push({
        path: new RegExp(String(body.path)),
        body: typeof body.body === "string" ? new RegExp(body.body) : undefined,
        status: Number(body.status),
        count: Number(body.count),
        afterProcessing: body.afterProcessing === true,
        hang: body.hang === true,
      });
      return answer(200, {});
    }
    if (method === "POST" && path === "/_stand-in/latency") {
      latencyMs = Number((JSON.parse(raw || "{}") as { ms?: number }).ms ?? 0);
      return answer(200, { latency_ms: latencyMs });
    }
    if (method === "POST" && path === "/_stand-in/release") {
      release();
      return answer(200, {});
    }
    if (method === "POST" && path === "/_stand-in/delivery") {
      Object.assign(delivery, body);
      return answer(200, { ...delivery });
    }
    if (method === "POST" && (match = /^\/_stand-in\/webhook_endpoints\/([^/]+)\/delivery$/.exec(path))) {
      const switches = { hold: false, duplicate: false, reorder: false, drop: false, ...endpointDelivery.get(match[1]!), ...body } as EndpointDelivery;
      endpointDelivery.set(match[1]!, switches);
      return answer(200, { ...switches });
    }
    if (method === "POST" && (match = /^\/_stand-in\/webhook_endpoints\/([^/]+)\/flush$/.exec(path))) {
      await flushEndpoint(match[1]!);
      return answer(200, {});
    }
    if (method === "POST" && path === "/_stand-in/flush") {
      await flush();
      return answer(200, {});
    }
    if (method === "POST" && (match = /^\/_stand-in\/payment_methods\/([^/]+)\/card_updater$/.exec(path))) {
      try {
        await cardUpdater(match[1]!, body as CardUpdate);
      } catch (error) {
        return answer(409, { error: { message: String(error) } });
      }
      return answer(200, {});
    }
    if (method === "POST" && (match = /^\/_stand-in\/refunds\/([^/]+)\/settle$/.exec(path))) {
      await settleRefund(match[1]!, body.succeed === true);
      return answer(200, {});
    }
    if (method === "POST" && (match = /^\/_stand-in\/setup_intents\/([^/]+)\/complete_action$/.exec(path))) {
      await completeSetupAction(match[1]!, body.succeed === true);
      return answer(200, {});
    }
    if (method === "POST" && (match = /^\/_stand-in\/payment_intents\/([^/]+)\/complete_action$/.exec(path))) {
      await completeAction(match[1]!, body.succeed === true);
      return answer(200, {});
    }
    try {
      if (method === "POST" && (match = /^\/_stand-in\/payment_intents\/([^/]+)\/dispute$/.exec(path))) {
        return answer(200, (await openDispute(match[1]!, { amount: body.amount === undefined ? undefined : Number(body.amount), reason: body.reason === undefined ? undefined : String(body.reason) })) as unknown as Json);
      }
      if (method === "POST" && (match = /^\/_stand-in\/disputes\/([^/]+)\/evidence$/.exec(path))) {
        await submitDisputeEvidence(match[1]!);
        return answer(200, {});
      }
      if (method === "POST" && (match = /^\/_stand-in\/disputes\/([^/]+)\/close$/.exec(path))) {
        if (body.outcome !== "won" && body.outcome !== "lost") return answer(400, { error: { message: "outcome: won or lost." } });
        await closeDispute(match[1]!, body.outcome);
        return answer(200, {});
      }
    } catch (error) {
      return answer(409, { error: { message: String(error) } });
    }
    return answer(404, { error: { message: `No stand-in control ${method} ${path}.` } });
  }

  /** The card network's updater gave a saved card a new expiry (or number): payment_method.automatically_updated, as Stripe's. */
  async function cardUpdater(paymentMethodId: string, update: CardUpdate): Promise<void> {
    const saved = methods.get(paymentMethodId);
    if (!saved?.object.card) throw new Error(`${paymentMethodId} is not a saved card.`);
    Object.assign(saved.object.card, update);
    emit("payment_method.automatically_updated", saved.object as unknown as Json);
    await flush();
  }

  /** The bank settles a pending refund: refund.updated (succeeded) or refund.failed, then charge.refund.updated. */
  async function settleRefund(refundId: string, succeeded: boolean): Promise<void> {
    const refund = refunds.get(refundId);
    if (!refund || refund.status !== "pending") throw new Error(`${refundId} is ${refund?.status ?? "unknown"}, not pending.`);
    refund.status = succeeded ? "succeeded" : "failed";
    if (!succeeded) refund.failure_reason = "expired_or_canceled_card";
    emit(succeeded ? "refund.updated" : "refund.failed", refund as unknown as Json);
    emit("charge.refund.updated", refund as unknown as Json);
    await flush();
  }

  /** As Stripe's: a dispute of a succeeded charge, needs_response with evidence due in 7 days; charge.dispute.created. */
  async function openDispute(paymentIntentId: string, input: DisputeInput = {}): Promise<Stripe.Dispute> {
    const intent = intentOf(paymentIntentId);
    if (intent.status !== "succeeded") throw new Error(`${paymentIntentId} is ${intent.status}: only a succeeded charge can be disputed.`);
    const amount = input.amount ?? intent.amount_received;
    if (amount < 1 || amount > intent.amount_received) throw new Error(`A dispute of ${amount} exceeds the charge (${intent.amount_received}).`);
    const dispute = {
      id: id("du"),
      object: "dispute",
      amount,
      currency: intent.currency,
      charge: `ch_${intent.id.slice(3)}`,
      payment_intent: intent.id,
      reason: input.reason ?? "fraudulent",
      status: "needs_response",
      is_charge_refundable: false,
      evidence_details: { due_by: now() + 7 * 24 * 3600, has_evidence: false, past_due: false, submission_count: 0 },
      metadata: {},
      created: now(),
      livemode,
    } as unknown as Stripe.Dispute;
    disputes.set(dispute.id, dispute);
    emit("charge.dispute.created", dispute as unknown as Json);
    await flush();
    return structuredClone(dispute);
  }

  function disputeOf(disputeId: string): Stripe.Dispute {
    const dispute = disputes.get(disputeId);
    if (!dispute) throw new Error(`No dispute ${disputeId}.`);
    return dispute;
  }

  function submitEvidence(dispute: Stripe.Dispute): void {
    if (dispute.status !== "needs_response" && dispute.status !== "warning_needs_response") throw new Error(`${dispute.id} is ${dispute.status}: no evidence is asked for.`);
    dispute.status = dispute.status === "needs_response" ? "under_review" : "warning_under_review";
    dispute.evidence_details = { ...dispute.evidence_details, due_by: null, has_evidence: true, submission_count: dispute.evidence_details.submission_count + 1 };
    emit("charge.dispute.updated", dispute as unknown as Json);
  }

  async function submitDisputeEvidence(disputeId: string): Promise<void> {
    submitEvidence(disputeOf(disputeId));
    await flush();
  }

  async function closeDispute(disputeId: string, outcome: "won" | "lost"): Promise<void> {
    const dispute = disputeOf(disputeId);
    if (["won", "lost", "warning_closed"].includes(dispute.status)) throw new Error(`${disputeId} is closed (${dispute.status}).`);
    if (dispute.status === "needs_response") submitEvidence(dispute);
    dispute.status = outcome;
    emit("charge.dispute.closed", dispute as unknown as Json);
    await flush();
  }

  async function completeAction(paymentIntentId: string, succeeded: boolean): Promise<void> {
    const intent = intentOf(paymentIntentId);
    if (intent.status !== "requires_action") throw new Error(`${paymentIntentId} is ${intent.status}, not requires_action.`);
    if (succeeded) succeed(intent);
    else {
      try {
        decline(intent, "payment_intent_authentication_failure", undefined, "The customer failed 3-D Secure authentication.");
      } catch {
        // decline throws the API's answer; here nobody asked.
      }
    }
    await flush();
  }

  /** The customer completes (setup_intent.succeeded) or fails (requires_payment_method, setup_intent.setup_failed) a SetupIntent's 3-D Secure. */
  async function completeSetupAction(setupIntentId: string, succeeded: boolean): Promise<void> {
    const setup = setupIntents.get(setupIntentId);
    if (!setup || setup.status !== "requires_action") throw new Error(`${setupIntentId} is ${setup?.status ?? "unknown"}, not requires_action.`);
    if (succeeded) succeedSetup(setup);
    else {
      setup.status = "requires_payment_method";
      setup.next_action = null;
      setup.payment_method = null;
      setup.last_setup_error = { type: "card_error", code: "setup_intent_authentication_failure", message: "The customer failed 3-D Secure authentication." } as unknown as Stripe.SetupIntent.LastSetupError;
      emit("setup_intent.setup_failed", setup as unknown as Json);
    }
    await flush();
  }

  const server: Server = createServer((request, response) => {
    void handle(request, response);
  });
  // Idle connections are kept longer than any client keeps them (undici: 4 s), so a client never
  // reuses a socket the stand-in is closing ("other side closed" on a busy machine); close() ends them.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  function release(): void {
    for (const go of hanging.splice(0)) go();
  }

  /**
   * Delivers one endpoint's held events one after another, each once the last was answered (newest
   * first under its `reorder`, so the receiver sees exactly that order); resolves when every
   * delivery so far has been answered.
   */
  async function flushEndpoint(endpointId: string): Promise<void> {
    const queued = endpointHeld.filter((held) => held.endpointId === endpointId);
    for (const held of queued) endpointHeld.splice(endpointHeld.indexOf(held), 1);
    if (endpointDelivery.get(endpointId)?.reorder) queued.reverse();
    const endpoint = webhookEndpoints.get(endpointId);
    for (const held of queued) {
      if (!endpoint) break;
      deliverTo(endpoint, held.event);
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    }
    while (inFlight.size > 0) await Promise.all([...inFlight]);
  }

  async function flush(): Promise<void> {
    const queued = held.splice(0);
    if (delivery.reorder) queued.reverse();
    for (const event of queued) deliverNow(event);
    while (inFlight.size > 0) await Promise.all([...inFlight]);
  }

  return {
    url: `http://127.0.0.1:${port}`,
    accountId,
    requests,
    deliveries,
    paymentIntents,
    setupIntents,
    charges,
    webhookEndpoints,
    delivery,
    fault: (fault) => faults.push({ ...fault }),
    flush,
    release,
    refunds,
    settleRefund,
    completeAction,
    disputes,
    openDispute,
    cardUpdater,
    submitDisputeEvidence,
    closeDispute,
    sign(payload, endpointId, timestamp) {
      const endpoint = webhookEndpoints.get(endpointId);
      if (!endpoint) throw new Error(`No webhook endpoint ${endpointId}.`);
      return signer.webhooks.generateTestHeaderString({ payload, secret: endpoint.secret!, timestamp });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        release();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** What the stand-in holds, as its control endpoint answers it. */
export type StandInState = {
  accountId: string;
  charges: string[];
  requests: RecordedRequest[];
  deliveries: Delivery[];
  paymentIntents: Stripe.PaymentIntent[];
  setupIntents: Stripe.SetupIntent[];
  refunds: Stripe.Refund[];
  disputes: Stripe.Dispute[];
  webhookEndpoints: Stripe.WebhookEndpoint[];
};

/**
 * Connects an account to Stripe (the stand-in, the app's `STRIPE_API_BASE`) through the API, and
 * answers the webhook endpoint the connection made there, whose deliveries a test may steer.
 */
export async function connectStripe(client: Client, accountId: string, keys: { processor: string; secret_key: string; publishable_key: string }): Promise<string> {
  const connected = await client.request("PUT", `/${accountId}/payment-processor`, { body: keys });
  if (connected.status !== 200) throw new Error(`connecting Stripe answered ${connected.status}: ${connected.text}`);
  return connected.body.webhook_endpoint_id as string;
}

/** The api project's stand-in (started by tests/setup/api-server.ts), driven over its control endpoints. */
export function stripeStandInClient(url: string) {
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${url}/_stand-in/${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`stand-in ${path}: ${response.status} ${await response.text()}`);
    return response;
  };
  return {
    url,
    state: async (): Promise<StandInState> => (await (await fetch(`${url}/_stand-in/state`)).json()) as StandInState,
    fault: (fault: Fault) => post("fault", { ...fault, path: fault.path.source, body: fault.body?.source }),
    delivery: (switches: Partial<StripeStandIn["delivery"]>) => post("delivery", switches),
    flush: () => post("flush", {}),
    release: () => post("release", {}),
    completeAction: (paymentIntentId: string, succeed: boolean) => post(`payment_intents/${paymentIntentId}/complete_action`, { succeed }),
    completeSetupAction: (setupIntentId: string, succeed: boolean) => post(`setup_intents/${setupIntentId}/complete_action`, { succeed }),
    settleRefund: (refundId: string, succeed: boolean) => post(`refunds/${refundId}/settle`, { succeed }),
    /** Opens a dispute of a succeeded PaymentIntent (charge.dispute.created) and answers it. */
    openDispute: async (paymentIntentId: string, input: DisputeInput = {}): Promise<Stripe.Dispute> =>
      (await (await post(`payment_intents/${paymentIntentId}/dispute`, input)).json()) as Stripe.Dispute,
    submitDisputeEvidence: (disputeId: string) => post(`disputes/${disputeId}/evidence`, {}),
    /** The card updater gives a saved card a new expiry or last 4 (payment_method.automatically_updated, delivered before it answers). */
    cardUpdater: (paymentMethodId: string, update: CardUpdate) => post(`payment_methods/${paymentMethodId}/card_updater`, update),
    closeDispute: (disputeId: string, outcome: "won" | "lost") => post(`disputes/${disputeId}/close`, { outcome }),
    /** One webhook endpoint's delivery switches (other endpoints, other merchants, are not touched). */
    endpointDelivery: (endpointId: string, switches: Partial<EndpointDelivery>) => post(`webhook_endpoints/${endpointId}/delivery`, switches),
    flushEndpoint: (endpointId: string) => post(`webhook_endpoints/${endpointId}/flush`, {}),
    /** Every API request waits `ms` before its answer (Stripe's latency, for benchmarks). */
    latency: (ms: number) => post("latency", { ms }),
  };
}
