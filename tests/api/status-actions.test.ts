import { beforeAll, describe, expect, it } from "vitest";
import { checkoutSessionActions } from "@/lib/checkout/rules";
import { creditNoteActions } from "@/lib/credit-notes/rules";
import { INVOICE_STATUSES } from "@/lib/invoices/statuses";
import { invoiceActions, invoiceFacts } from "@/lib/invoices/rules";
import { paymentActions, refundablePayment } from "@/lib/refunds/rules";
import { changeRequestActions, changeRequestFacts } from "@/lib/subscription-changes/rules";
import { CHANGE_REQUEST_STATUSES } from "@/lib/subscription-changes/statuses";
import { subscriptionActions, subscriptionFacts } from "@/lib/subscriptions/rules";
import { SUBSCRIPTION_STATUSES } from "@/lib/subscriptions/statuses";
import { CHECKOUT_STATUSES } from "@/lib/checkout/statuses";
import { PAYMENT_STATUSES } from "@/lib/payments/statuses";
import { api, type ApiResponse, type Client, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";

/*
 * The dashboard shows an action's button exactly when the rule of lib/<domain>/rules.ts says so,
 * computed from the object as the API answers it (tests/unit/status-buttons.test.ts proves the
 * components render from the rule). This walks every status each object can rest in × every
 * action the dashboard offers on it, over real HTTP: the API accepts the action if and only if the
 * rule allows it — no button that answers 409, none hidden that would succeed. Each action runs on
 * an object of its own, brought to the status through the API. Payment intents: intent-cancel-agreement.test.ts.
 */

let sandbox: Client;
let price: string;
let pro: string;
let addon: string;

beforeAll(async () => {
  const merchant = await newMerchant();
  sandbox = api(merchant.sandboxSecret.token);
  const product = await ok(sandbox.post("/products", { name: "Status plan" }));
  const recurring = (amount: number) => ok(sandbox.post("/prices", { product: product.id, currency: "usd", unit_amount_atom: amount, type: "recurring", recurring: { interval: "month" } }));
  const made = await Promise.all([recurring(1000), recurring(3000), recurring(500)]);
  [price, pro, addon] = [made[0].id, made[1].id, made[2].id];
});

/** The answer's body, once its status says it succeeded. */
async function ok(request: Promise<ApiResponse>): Promise<Json> {
  const response = await request;
  expect(response.status, response.text).toBeLessThan(300);
  return response.body;
}

const customer = async () => (await ok(sandbox.post("/customers", { email: "status@example.com" }))).id as string;
const succeeded = (response: ApiResponse) => response.status >= 200 && response.status < 300;

type Walk<Action extends string> = {
  /** Each status the object can rest in, reached through the API (several ways for some). */
  states: Record<string, () => Promise<Json>>;
  /** The object as the API answers it now. */
  read: (object: Json) => Promise<Json>;
  /** What the dashboard renders its buttons from. */
  rule: (object: Json) => Promise<Record<Action, boolean>> | Record<Action, boolean>;
  /** Asks the API to do the action; true when it did. */
  act: Record<Action, (object: Json) => Promise<boolean>>;
};

/** One `it` per state: every action on an object of its own, compared with the rule. */
function walk<Action extends string>(name: string, statuses: readonly string[], spec: Walk<Action>) {
  describe(`${name}: the dashboard's buttons equal the API's answers`, () => {
    it("covers every status", async () => {
      const reached = new Set<string>();
      for (const make of Object.values(spec.states)) reached.add(String((await spec.read(await make())).status));
      expect([...reached].sort()).toEqual([...statuses].sort());
    });

    it.each(Object.keys(spec.states))("%s", async (state) => {
      const outcomes: Record<string, { shown: boolean; done: boolean }> = {};
      for (const action of Object.keys(spec.act) as Action[]) {
        const object = await spec.read(await spec.states[state]!());
        const shown = (await spec.rule(object))[action];
        outcomes[action] = { shown, done: await spec.act[action](object) };
      }
      const expected = Object.fromEntries(Object.entries(outcomes).map(([action, { shown }]) => [action, { shown, done: shown }]));
      expect(outcomes).toEqual(expected);
    });
  });
}

// Invoices: 3 × 1000 (total 3000, no tax).
const draft = async (lines = [{ unit_amount_atom: 1000, quantity: 3, description: "Seats" }]) =>
  ok(sandbox.post("/invoices", { customer: await customer(), currency: "usd", lines }));
const openInvoice = async () => ok(sandbox.post(`/invoices/${(await draft()).id}/finalize`, {}));
type InvoiceStep = "finalize" | "pay" | "void" | "mark-uncollectible";
const then = async (invoice: Promise<Json>, path: InvoiceStep, body: Json = {}) => ok(sandbox.post(`/invoices/${(await invoice).id}/${path}`, body));
const readInvoice = (invoice: Json) => ok(sandbox.get(`/invoices/${invoice.id}`));
const invoicePost = async (invoice: Json, path: InvoiceStep, body: Json = {}) => succeeded(await sandbox.post(`/invoices/${invoice.id}/${path}`, body));

walk("invoices", INVOICE_STATUSES, {
  states: {
    draft: () => draft(),
    "draft without lines": () => draft([]),
    open: openInvoice,
    "open, partly paid": () => then(openInvoice(), "pay", { payment_method: "pm_sandbox_partially_funded" }),
    uncollectible: () => then(openInvoice(), "mark-uncollectible"),
    paid: () => then(openInvoice(), "pay", { paid_out_of_band: true }),
    "paid by a credit note": async () => {
      const invoice = await openInvoice();
      await ok(sandbox.post("/credit-notes", { invoice: invoice.id, amount_atom: invoice.total_amount_atom, reason: "order_change" }));
      return invoice;
    },
    void: () => then(openInvoice(), "void"),
  },
  read: readInvoice,
  rule: (invoice) => {
    const can = invoiceActions(invoiceFacts(invoice as Parameters<typeof invoiceFacts>[0]));
    // The sandbox card shows with Pay on sandbox invoices (components/invoices/invoice-actions.tsx).
    return { ...can, payWithCard: can.pay && !invoice.livemode };
  },
  act: {
    finalize: (invoice) => invoicePost(invoice, "finalize"),
    pay: (invoice) => invoicePost(invoice, "pay", { paid_out_of_band: true }),
    payWithCard: (invoice) => invoicePost(invoice, "pay", { payment_method: "pm_sandbox_succeeds" }),
    markUncollectible: (invoice) => invoicePost(invoice, "mark-uncollectible"),
    void: (invoice) => invoicePost(invoice, "void"),
    credit: async (invoice) => succeeded(await sandbox.post("/credit-notes", { invoice: invoice.id, amount_atom: 1, reason: "order_change" })),
    send: async (invoice) => succeeded(await sandbox.post(`/invoices/${invoice.id}/send`, {})),
  },
});

// Credit notes: a pre-payment one of 100 on an invoice, which then moves on.
const noteOn = async (invoice: Json | Promise<Json>, body: Json = { amount_atom: 100 }) => {
  const note = await ok(sandbox.post("/credit-notes", { invoice: (await invoice).id, reason: "order_change", ...body }));
  return note;
};
const noteThen = async (path: InvoiceStep, body: Json = {}) => {
  const invoice = await openInvoice();
  const note = await noteOn(invoice);
  await then(Promise.resolve(invoice), path, body);
  return note;
};

walk("credit notes", ["issued", "void"], {
  states: {
    "issued, invoice open": () => noteOn(openInvoice()),
    "issued, invoice uncollectible": () => noteThen("mark-uncollectible"),
    "issued, invoice paid since": () => noteThen("pay", { paid_out_of_band: true }),
    // The drift this replaces: the dashboard showed Void here, and the API answered 409.
    "issued, invoice voided since": () => noteThen("void"),
    "issued after payment": () => noteOn(then(openInvoice(), "pay", { paid_out_of_band: true }), { amount_atom: 100, credit_amount_atom: 100 }),
    void: async () => {
      const note = await noteOn(openInvoice());
      await ok(sandbox.post(`/credit-notes/${note.id}/void`, {}));
      return note;
    },
  },
  read: (note) => ok(sandbox.get(`/credit-notes/${note.id}`)),
  rule: async (note) => creditNoteActions({ status: note.status, type: note.type, invoiceStatus: (await readInvoice({ id: note.invoice })).status }),
  act: { void: async (note) => succeeded(await sandbox.post(`/credit-notes/${note.id}/void`, {})) },
});

// Subscriptions. Past due needs the account's clock past a declined renewal: an account of its own,
// whose subscriptions (one per action, and one for the coverage) trial until the same instant and
// become past due together by one advance of its clock.
const PAST_DUE_NEEDED = 5;
let pastDuePool: Promise<Json[]> | null = null;
async function makePastDue(): Promise<Json[]> {
  const merchant = await newMerchant();
  const client = api(merchant.sandboxSecret.token);
  const product = (await ok(client.post("/products", { name: "Dunning plan" }))).id;
  const monthly = (await ok(client.post("/prices", { product, currency: "usd", unit_amount_atom: 2000, type: "recurring", recurring: { interval: "month" } }))).id;
  const owner = (await ok(client.post("/customers", { email: "due@example.com" }))).id;
  const trialEnd = new Date(Date.now() + 7 * 86_400_000);
  const made: Json[] = [];
  for (let i = 0; i < PAST_DUE_NEEDED; i++) {
    const body = { customer: owner, items: [{ price: monthly }], trial_end: trialEnd.toISOString(), default_payment_method: "pm_sandbox_declined" };
    made.push({ ...(await ok(client.post("/subscriptions", body))), client });
  }
  await ok(client.post(`/${merchant.sandboxAccountId}/test-clock/advance`, { to: new Date(trialEnd.getTime() + 3_600_000).toISOString() }));
  return made;
}
async function pastDue(): Promise<Json> {
  pastDuePool ??= makePastDue();
  const next = (await pastDuePool).shift();
  if (!next) throw new Error(`More than ${PAST_DUE_NEEDED} past-due subscriptions asked for: raise PAST_DUE_NEEDED.`);
  return next;
}

const subscribe = async (extra: Json = {}) => ok(sandbox.post("/subscriptions", { customer: await customer(), items: [{ price }], default_payment_method: "pm_sandbox_succeeds", ...extra }));
const subscriptionThen = async (path: string, body: Json = {}) => ok(sandbox.post(`/subscriptions/${(await subscribe()).id}/${path}`, body));
const clientOf = (subscription: Json): Client => (subscription.client as Client | undefined) ?? sandbox;
const subscriptionPost = async (subscription: Json, path: string, body: Json = {}) => {
  const response = await clientOf(subscription).post(`/subscriptions/${subscription.id}/${path}`, body);
  return { response, done: succeeded(response) };
};

walk("subscriptions", SUBSCRIPTION_STATUSES, {
  states: {
    trialing: () => subscribe({ trial_period_days: 7 }),
    active: () => subscribe(),
    "active, cancelling at period end": () => subscriptionThen("cancel", { at_period_end: true }),
    paused: () => subscriptionThen("pause"),
    cancelled: () => subscriptionThen("cancel"),
    past_due: pastDue,
  },
  read: async (subscription) => ({ ...(await ok(clientOf(subscription).get(`/subscriptions/${subscription.id}`))), client: subscription.client }),
  rule: (subscription) => subscriptionActions(subscriptionFacts(subscription as { status: string; cancel_at_period_end: boolean })),
  act: {
    pause: async (subscription) => (await subscriptionPost(subscription, "pause")).done,
    resume: async (subscription) => (await subscriptionPost(subscription, "resume")).done,
    // Asked again once set, the API answers 200 and changes nothing: done means it now cancels at the period end.
    cancelAtPeriodEnd: async (subscription) => {
      const { response, done } = await subscriptionPost(subscription, "cancel", { at_period_end: true });
      return done && !subscription.cancel_at_period_end && response.body.cancel_at_period_end === true;
    },
    cancelNow: async (subscription) => (await subscriptionPost(subscription, "cancel")).done,
  },
});

// Change requests: switch the price and add an item, on a subscription paid by the sandbox card.
const changeRequest = async (extra: Json = {}) => {
  const subscription = await subscribe();
  const steps = [
    { type: "switch_price", item: subscription.items[0].id, price: pro },
    { type: "add_item", price: addon, quantity: 1 },
  ];
  return ok(sandbox.post(`/subscriptions/${subscription.id}/change-requests`, { steps, ...extra }));
};
const requestPost = async (request: Json, path: string, body: Json = {}) =>
  sandbox.post(`/subscriptions/${request.subscription}/change-requests/${request.id}/${path}`, body);
const requestThen = async (request: Promise<Json>, path: string, body: Json = {}) => {
  const made = await request;
  const response = await requestPost(made, path, body);
  return { made, response };
};

walk("change requests", CHANGE_REQUEST_STATUSES, {
  states: {
    open: () => changeRequest(),
    "open, at the period end": () => changeRequest({ effective: "period_end" }),
    scheduled: async () => (await requestThen(changeRequest({ effective: "period_end" }), "apply")).made,
    partially_applied: async () => {
      const { made, response } = await requestThen(changeRequest(), "apply", { sandbox_fail_step: 1 });
      expect(response.status, response.text).toBe(409);
      return made;
    },
    applied: async () => (await requestThen(changeRequest(), "apply")).made,
    canceled: async () => (await requestThen(changeRequest(), "cancel")).made,
  },
  read: (request) => ok(sandbox.get(`/subscriptions/${request.subscription}/change-requests/${request.id}`)),
  rule: (request) => changeRequestActions(changeRequestFacts(request as Parameters<typeof changeRequestFacts>[0])),
  act: {
    apply: async (request) => succeeded(await requestPost(request, "apply")),
    cancel: async (request) => succeeded(await requestPost(request, "cancel")),
  },
});

// Checkout sessions: a payment session of a one-time price.
let oneTime: string | null = null;
const session = async () => {
  oneTime ??= (await ok(sandbox.post("/prices", { product: (await ok(sandbox.post("/products", { name: "Mug" }))).id, currency: "usd", unit_amount_atom: 900, type: "one_time" }))).id as string;
  return ok(sandbox.post("/checkout/sessions", { mode: "payment", line_items: [{ price: oneTime }], success_url: "https://shop.example.com/thanks" }));
};

walk("checkout sessions", CHECKOUT_STATUSES, {
  states: {
    open: session,
    expired: async () => ok(sandbox.post(`/checkout/sessions/${(await session()).id}/expire`, {})),
    complete: async () => {
      const made = await session();
      await ok(api().post(`/checkout/sessions/${made.id}/complete`, { email: "buyer@example.com", payment_method: "pm_sandbox_succeeds" }));
      return made;
    },
  },
  read: (made) => ok(sandbox.get(`/checkout/sessions/${made.id}`)),
  rule: (made) => checkoutSessionActions({ status: made.status }),
  act: { expire: async (made) => succeeded(await sandbox.post(`/checkout/sessions/${made.id}/expire`, {})) },
});

// Payments (refunds): refund whatever is left of a payment of 2000.
const payment = async (method = "pm_sandbox_succeeds") => {
  const intent = await ok(sandbox.post("/payment-intents", { amount_atom: 2000, currency: "usd", payment_method: method, confirm: true }));
  return (await ok(sandbox.get(`/payments?payment_intent=${intent.id}`))).items[0] as Json;
};
const refund = (made: Json, amount?: number) => sandbox.post("/refunds", { payment: made.id, ...(amount ? { amount_atom: amount } : {}) });

walk("payments (refunds)", PAYMENT_STATUSES, {
  states: {
    succeeded: () => payment(),
    partially_refunded: async () => {
      const made = await payment();
      await ok(refund(made, 500));
      return made;
    },
    refunded: async () => {
      const made = await payment();
      await ok(refund(made));
      return made;
    },
    failed: () => payment("pm_sandbox_declined"),
  },
  read: (made) => ok(sandbox.get(`/payments/${made.id}`)),
  rule: (made) => paymentActions(refundablePayment(made)),
  act: { refund: async (made) => succeeded(await refund(made)) },
});
