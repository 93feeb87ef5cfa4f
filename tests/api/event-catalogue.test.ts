import { readFileSync, writeFileSync } from "node:fs";
import { simpleParser } from "mailparser";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { userIdByEmail } from "@/lib/auth/audit";
import { EVENT_TYPES, SPEC_EVENT_TYPES } from "@/lib/events/catalogue";
import { api, type Client, type Json, type AccountPath } from "../helpers/api";
import { callAction } from "../helpers/server-action";
import { signedInUser } from "../helpers/session";
import { authUrl, signInWithPassword } from "../helpers/sign-in";
import { PASSWORD } from "../helpers/team";
import { eventually, refusedUrl } from "../helpers/receiver";
import { PROJECT_ROOT } from "../helpers/server";
import { sharedStripeStandIn } from "../helpers/shared-stripe-stand-in";

const DAY = 24 * 60 * 60 * 1000;
// Its Stripe charge is disputed at the stand-in, which the files that drive it take in turns.
const standIn = sharedStripeStandIn();

/**
 * Every type of the spec's catalogue is produced by a real flow: the API calls a merchant makes,
 * the hosted checkout's completion, or the passage of time on the sandbox test clock. One sandbox
 * account lives through all of it; then each type is checked for at least one event whose entity
 * state is what the type says.
 */
let account: string;
let client: Client;

async function ok(response: Promise<{ status: number; body: Json; text: string }>): Promise<Json> {
  const settled = await response;
  expect([200, 201], settled.text).toContain(settled.status);
  return settled.body;
}

/** next-auth's sign-out, as the dashboard's button posts it. */
async function signOut(base: string, cookie: string): Promise<void> {
  const csrf = await fetch(authUrl(base, "/csrf"), { headers: { Cookie: cookie } });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookies = [cookie, ...csrf.headers.getSetCookie().map((c) => c.split(";")[0]!)].join("; ");
  const out = await fetch(authUrl(base, "/signout"), {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookies },
    body: new URLSearchParams({ csrfToken, json: "true" }),
  });
  expect(out.status).toBeLessThan(400);
}

async function advance(ms: number): Promise<void> {
  const clock = await ok(client.get(`/${account}/test-clock`));
  await ok(client.post(`/${account}/test-clock/advance`, { to: new Date(Date.parse(clock.now) + ms).toISOString() }));
}

beforeAll(async () => {
  // A signed-in user's sandbox account: API tokens are made (and revoked) in the dashboard only.
  const user = await signedInUser();
  account = user.sandbox.id;
  const issued = await ok(user.request("POST", `/${account}/api-tokens`, { body: { name: "catalogue", kind: "secret" } }));
  client = api(issued.token);
  const post = (path: AccountPath<"post">, body: unknown = {}) => ok(client.post(`/${account}${path}`, body));
  const del = (path: AccountPath<"delete">) => ok(client.delete(`/${account}${path}`));

  // Audit: a token revoked, an endpoint updated, disabled, enabled, its secret rotated, deleted.
  const spareToken = await ok(user.request("POST", `/${account}/api-tokens`, { body: { name: "spare", kind: "publishable" } }));
  await ok(user.request("POST", `/${account}/api-tokens/${spareToken.id}/roll`, { body: { overlap_seconds: 0 } }));
  await ok(user.request("POST", `/${account}/api-tokens/${spareToken.id}/revoke`));
  const hook = await post("/webhook-endpoints", { url: await refusedUrl(), events: ["customer.created"] });
  await post(`/webhook-endpoints/${hook.id}`, { description: "Audit" });
  await post(`/webhook-endpoints/${hook.id}`, { enabled: false });
  await post(`/webhook-endpoints/${hook.id}`, { enabled: true });
  await post(`/webhook-endpoints/${hook.id}/rotate-secret`, {});
  await del(`/webhook-endpoints/${hook.id}`);
  const base = inject("apiBaseUrl");
  // Membership: an invitation revoked, another accepted, the new member's role changed, then removed.
  const settings = `/accounts/${account}/settings`;
  const act = async (name: string, input: unknown): Promise<Json> => {
    const { result } = await callAction(base, settings, name, input, user.cookie);
    expect(result, name).toMatchObject({ ok: true });
    return result;
  };
  const stamp = Date.now().toString(36);
  const withdrawn = await act("createInvitationAction", { email: `withdrawn-${stamp}@example.com`, role: "viewer" });
  await act("revokeInvitationAction", { invitationId: withdrawn.invitationId });
  const invited = await act("createInvitationAction", { email: `joined-${stamp}@example.com`, role: "developer" });
  const joined = await callAction(base, invited.path, "acceptInvitationAction", { token: invited.path.split("/").pop(), name: "Joined Member", password: PASSWORD });
  expect(joined.result).toMatchObject({ ok: true });
  const memberId = (await userIdByEmail(`joined-${stamp}@example.com`))!;
  await act("changeMemberRoleAction", { userId: memberId, role: "viewer" });
  await act("removeMemberAction", { userId: memberId });
  // The user: signed in above; a wrong password, a password change, a sign-out.
  await expect(signInWithPassword(base, user.user.email, "not the password at all")).rejects.toThrow(/sign-in failed/);
  const changed = await callAction(base, `/accounts/${account}/settings`, "changePasswordAction", { currentPassword: PASSWORD, newPassword: `${PASSWORD} again` }, user.cookie);
  expect(changed.result).toMatchObject({ ok: true });
  await signOut(base, changed.renewed ?? user.cookie);

  // The payment processor: Stripe (the api project's stand-in) connected with test keys, then disconnected.
  await ok(client.request("PUT", `/${account}/payment-processor`, { body: { processor: "stripe", secret_key: "sk_test_catalogue_flow", publishable_key: "pk_test_catalogue_flow" } }));
  // A Stripe charge disputed by the card holder: opened, evidence submitted, lost (each webhook re-read and applied).
  const disputedIntent = await post("/payment-intents", { amount_atom: 2500, currency: "usd", payment_method: "pm_card_visa", confirm: true });
  const stripeIntent = (await standIn.state()).paymentIntents.find((candidate) => candidate.metadata.payment_intent === disputedIntent.id)!;
  const stripeDispute = await standIn.openDispute(stripeIntent.id, { amount: 2500, reason: "product_not_received" });
  const disputeStatus = async (status: string) =>
    eventually(
      async () => (await ok(client.get(`/${account}/disputes?payment_intent=${disputedIntent.id}`))).items,
      (items: Json[]) => items[0]?.status === status,
    );
  await disputeStatus("needs_response");
  await standIn.submitDisputeEvidence(stripeDispute.id);
  await disputeStatus("under_review");
  await standIn.closeDispute(stripeDispute.id, "lost");
  await disputeStatus("lost");
  await ok(client.delete(`/${account}/payment-processor`));

  // Catalogue: product, price, coupon — created, updated, deleted.
  await post("/account-settings", { business_name: "Example GmbH", address: { line1: "Unter den Linden 1", postal_code: "10117", city: "Berlin", country: "DE" } });
  const vat = await post("/tax-rates", { display_name: "VAT", percentage: 19, inclusive: false, country: "DE" });
  await post(`/tax-rates/${vat.id}`, { active: false });
  const product = await post("/products", { name: "Pro" });
  await post(`/products/${product.id}`, { description: "The pro plan" });
  const spare = await post("/products", { name: "Spare" });
  const monthly = await post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 2000, type: "recurring", recurring: { interval: "month" } });
  const oneTime = await post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 500, type: "one_time" });
  await post(`/prices/${monthly.id}`, { nickname: "Monthly" });
  const retired = await post("/prices", { product: spare.id, currency: "usd", unit_amount_atom: 100, type: "one_time" });
  await del(`/prices/${retired.id}`);
  await del(`/products/${spare.id}`);
  const tenOff = await post("/coupons", { percent_off: 10, duration: "forever" });
  const fiveOff = await post("/coupons", { amount_off_atom: 500, currency: "usd", duration: "once" });
  await post(`/coupons/${tenOff.id}`, { name: "Ten percent" });
  const doomed = await post("/coupons", { percent_off: 1, duration: "forever" });
  await del(`/coupons/${doomed.id}`);
  // Features: one attached to the plan (the subscriptions below are entitled to it), one attached then detached.
  const reports = await post("/features", { lookup_key: "reports", name: "Reports" });
  await post(`/products/${product.id}/features`, { feature: reports.id });
  const beta = await post("/features", { lookup_key: "beta", name: "Beta" });
  await post(`/products/${product.id}/features`, { feature: beta.id });
  await del(`/products/${product.id}/features/${beta.id}`);
  await post("/portal-configuration", { features: { subscription_pause: { enabled: true } } });

  // Meters (usage-based billing): created, updated, deactivated, reactivated.
  const meter = await post("/meters", { event_name: "api_request", display_name: "API requests", aggregation: "count" });
  await post(`/meters/${meter.id}`, { display_name: "Requests" });
  await post(`/meters/${meter.id}/deactivate`);
  await post(`/meters/${meter.id}/reactivate`);

  // Customers and a customer discount: created, updated (replaced), deleted.
  const customer = await post("/customers", { email: "jenny@example.com", name: "Jenny" });
  await post(`/customers/${customer.id}`, { name: "Jenny Rosen" });
  const leaving = await post("/customers", { email: "leaving@example.com" });
  await del(`/customers/${leaving.id}`);
  await post(`/customers/${customer.id}/discount`, { coupon: tenOff.id });
  await post(`/customers/${customer.id}/discount`, { coupon: fiveOff.id });
  await del(`/customers/${customer.id}/discount`);

  // Alerts (docs/usage-billing.md, "Alerts"): the customer's usage alert crosses at its first
  // event (alert.triggered); its calendar month ends in the 40-day advance below (alert.resolved).
  const alert = await post("/alerts", { type: "usage_threshold", meter: meter.id, customer: customer.id, threshold: 1 });
  await post("/usage-events", { identifier: "catalogue-alert-1", event_name: "api_request", customer: customer.id, payload: {} });
  // The evaluator (the clock's ticker) runs within seconds, not in the request: wait for the trigger
  // before the customer subscribes below. The subscription's period, which starts after this
  // event, would otherwise be the one evaluated, with no usage in it (a loaded run, 2026-12-05).
  await eventually(
    () => ok(client.get(`/${account}/alert-triggers?alert=${alert.id}`)),
    (page: Json) => page.items.length === 1,
    60_000,
  );

  // Payment methods (docs/payments.md): a sandbox method attached to the customer, another attached then detached.
  await post(`/customers/${customer.id}/payment-methods`, { processor_payment_method: "pm_sandbox_succeeds" });
  const detached = await post(`/customers/${customer.id}/payment-methods`, { processor_payment_method: "pm_sandbox_declined" });
  await del(`/customers/${customer.id}/payment-methods/${detached.id}`);
  const kept = (await ok(client.get(`/${account}/customers/${customer.id}/payment-methods`))).items[0];
  await post(`/customers/${customer.id}/payment-methods/${kept.id}`, { metadata: { label: "office" }, card: { exp_month: 3 } });

  // Payment intents through every sandbox outcome, and refunds that succeed and fail.
  const intent = (payment_method: string, extra: object = {}) =>
    post("/payment-intents", { amount_atom: 1000, currency: "usd", customer: customer.id, payment_method, confirm: true, ...extra });
  const paid = await intent("pm_sandbox_succeeds");
  await intent("pm_sandbox_declined");
  await intent("pm_sandbox_requires_action");
  await intent("pm_sandbox_partially_funded");
  const authorized = await intent("pm_sandbox_succeeds", { capture_method: "manual" });
  await post(`/payment-intents/${authorized.id}/cancel`);
  const refusing = await intent("pm_sandbox_refund_fails");
  const paymentOf = async (pi: string) => (await ok(client.get(`/${account}/payments?payment_intent=${pi}`))).items[0].id;
  await post("/refunds", { payment: await paymentOf(paid.id), amount_atom: 400 });
  await post("/refunds", { payment: await paymentOf(refusing.id) });

  // Invoices: paid with a card then refunded, failed, needing action, voided, uncollectible, overdue.
  const invoice = async (due_date?: string) => {
    const draft = await post("/invoices", { customer: customer.id, currency: "usd", lines: [{ price: oneTime.id }], ...(due_date ? { due_date } : {}) });
    return post(`/invoices/${draft.id}/finalize`);
  };
  const card = await invoice();
  const cardPaid = await post(`/invoices/${card.id}/pay`, { payment_method: "pm_sandbox_succeeds" });
  await post("/refunds", { payment: await paymentOf(cardPaid.payment_intent) });
  await post(`/invoices/${(await invoice()).id}/pay`, { payment_method: "pm_sandbox_declined" });
  await post(`/invoices/${(await invoice()).id}/pay`, { payment_method: "pm_sandbox_requires_action" });
  await post(`/invoices/${(await invoice()).id}/void`);
  await post(`/invoices/${(await invoice()).id}/mark-uncollectible`);
  // Credit notes: one on an open invoice, voided; one on a paid invoice, credited to the balance;
  // a manual balance adjustment.
  const credited = await invoice();
  const preNote = await post("/credit-notes", { invoice: credited.id, amount_atom: 100, reason: "order_change" });
  await post(`/credit-notes/${preNote.id}/void`);
  await post("/credit-notes", { invoice: cardPaid.id, amount_atom: 100, reason: "product_unsatisfactory", credit_amount_atom: 100 });
  await post(`/customers/${customer.id}/balance-transactions`, { amount_atom: -100, currency: "usd", description: "Correction" });
  const clockNow = Date.parse((await ok(client.get(`/${account}/test-clock`))).now);
  await invoice(new Date(clockNow + DAY).toISOString());

  // Credit grants (docs/billing.md, "Credit grants"): one used up by an invoice (applied, depleted),
  // one voided, one in euros that expires when the clock moves 40 days.
  const granted = await post("/customers", { email: "granted@example.com" });
  await post("/credit-grants", { customer: granted.id, amount_atom: 300, currency: "usd", category: "promotional", applies_to: "all" });
  const voidedGrant = await post("/credit-grants", { customer: granted.id, amount_atom: 100, currency: "usd", category: "paid", applies_to: "all" });
  await post(`/credit-grants/${voidedGrant.id}/void`);
  await post("/credit-grants", { customer: granted.id, amount_atom: 100, currency: "eur", category: "paid", applies_to: "all", expires_at: new Date(clockNow + DAY).toISOString() });
  const grantDraft = await post("/invoices", { customer: granted.id, currency: "usd", lines: [{ price: oneTime.id }] });
  await post(`/invoices/${grantDraft.id}/finalize`);
  // Voiding it gives the grant's credit back (reinstated; the depleted grant is active again).
  await post(`/invoices/${grantDraft.id}/void`);

  // Subscriptions: paused, resumed, updated, cancelled; a trial that will end and renew.
  const subscription = await post("/subscriptions", { customer: customer.id, items: [{ price: monthly.id }] });
  await post(`/subscriptions/${subscription.id}`, { metadata: { plan: "pro" } });
  await post(`/subscriptions/${subscription.id}/pause`);
  await post(`/subscriptions/${subscription.id}/resume`);
  await post(`/subscriptions/${subscription.id}/cancel`);
  await post("/subscriptions", {
    customer: customer.id,
    items: [{ price: monthly.id }],
    trial_period_days: 7,
    default_payment_method: "pm_sandbox_succeeds",
  });

  // Changes at the period end: one scheduled then applied by the renewal, one scheduled then cancelled.
  const basic = await post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 1000, type: "recurring", recurring: { interval: "month" } });
  const changing = await post("/subscriptions", { customer: customer.id, items: [{ price: monthly.id }] });
  const atPeriodEnd = async (step: Json) => {
    const scr = await post(`/subscriptions/${changing.id}/change-requests`, { steps: [step], effective: "period_end" });
    return post(`/subscriptions/${changing.id}/change-requests/${scr.id}/apply`);
  };
  await atPeriodEnd({ type: "switch_price", item: changing.items[0].id, price: basic.id });
  const dropped = await atPeriodEnd({ type: "set_quantity", item: changing.items[0].id, quantity: 2 });
  await post(`/subscriptions/${changing.id}/change-requests/${dropped.id}/cancel`);

  // Checkout: one completed on the hosted page's operation, one updated then deleted, one expired.
  const checkout = (extra: object = {}) =>
    post("/checkout/sessions", { mode: "payment", line_items: [{ price: oneTime.id, quantity: 2 }], success_url: "https://example.com/thanks", ...extra });
  const completed = await checkout();
  await ok(api().post(`/checkout/sessions/${completed.id}/complete`, { email: "new-buyer@example.com", payment_method: "pm_sandbox_succeeds" }));
  const edited = await checkout();
  await post(`/checkout/sessions/${edited.id}`, { metadata: { cart: "42" } });
  await del(`/checkout/sessions/${edited.id}`);
  await checkout();

  // Time: 40 days pass — the invoice goes overdue, the trial announces its end and renews (with
  // invoice.upcoming before), and the open checkout session expires.
  await advance(40 * DAY);

  // Email (docs/emails.md): the receipts of the paid invoices are sent (email.sent); with the hourly
  // limit at 1, the next email is refused by it (email.failed, status rate_limited).
  const [sent] = (
    await eventually(
      () => ok(client.get(`/${account}/emails?status=sent&limit=1`)),
      (page) => page.items.length === 1,
    )
  ).items;
  // The shared app has no SMTP_URL: the message is a .eml file, the MIME message SMTP would carry.
  const file = /^250 Written to (\S+\.eml)/.exec(sent.smtp_response)?.[1];
  expect(file, sent.smtp_response).toBeDefined();
  const parsed = await simpleParser(readFileSync(path.join(PROJECT_ROOT, file!)));
  expect(parsed.subject).toBe(sent.subject);
  expect(parsed.messageId).toBe(sent.message_id);
  await ok(client.post(`/${account}/account-settings`, { email_hourly_limit: 1 }));
  const refused = await post("/emails/test", { to: "owner@example.com" });
  await eventually(
    () => ok(client.get(`/${account}/emails/${refused.id}`)),
    (email) => email.status === "rate_limited",
  );
}, 120_000);

/**
 * `npm run events:examples` runs this file with RECORD_EVENT_EXAMPLES=1: the oldest event of each
 * type, as the API serves it and as its deliveries POST it (the exact body), becomes the type's
 * example in lib/events/examples.json (the OpenAPI document's examples, "send test event").
 */
afterAll(async () => {
  if (!process.env.RECORD_EVENT_EXAMPLES) return;
  const examples: Record<string, { event: Json; webhook: Json }> = {};
  for (const type of EVENT_TYPES) {
    const page = await ok(client.get(`/${account}/events?event_type=${type}&limit=100`));
    const oldest = page.items.at(-1);
    const full = await ok(client.get(`/${account}/events/${oldest.id}/full`));
    examples[type] = { event: full.event, webhook: JSON.parse(full.webhook.body) };
  }
  writeFileSync(path.join(PROJECT_ROOT, "lib/events/examples.json"), `${JSON.stringify(examples, null, 2)}\n`);
});

type Check = (data: Json, event: Json) => void;
const status = (expected: string): Check => (data) => expect(data.status).toBe(expected);
const deleted: Check = (data) => expect(data.deleted).toBe(true);

/** What each type implies about the entity state it carries. */
const IMPLIES: Record<(typeof EVENT_TYPES)[number], Check> = {
  "payment.succeeded": status("succeeded"),
  "payment.failed": status("failed"),
  "payment.refunded": (data) => {
    expect(["refunded", "partially_refunded"]).toContain(data.status);
    expect(data.amount_refunded_atom).toBeGreaterThan(0);
  },
  "checkout.session.created": status("open"),
  "checkout.session.updated": (data, event) => {
    expect(data.status).toBe("open");
    expect(event.previous_data).not.toBeNull();
  },
  "checkout.session.deleted": deleted,
  "checkout.session.completed": (data) => {
    expect(data.status).toBe("complete");
    expect(data.customer).toMatch(/^cus_/);
  },
  "checkout.session.expired": status("expired"),
  "payment_intent.created": (data, event) => {
    expect(data.object).toBe("payment_intent");
    expect(event.previous_data).toBeNull();
  },
  "payment_intent.processing": status("processing"),
  "payment_intent.requires_action": status("requires_action"),
  "payment_intent.amount_capturable_updated": (data) => {
    expect(data.status).toBe("requires_capture");
    expect(data.amount_capturable_atom).toBeGreaterThan(0);
  },
  "payment_intent.succeeded": status("succeeded"),
  "payment_intent.canceled": status("canceled"),
  "payment_intent.payment_failed": (data) => {
    expect(data.status).toBe("requires_payment_method");
    expect(data.last_payment_error).toBeTruthy();
  },
  "payment_intent.partially_funded": (data) => {
    expect(data.status).toBe("partially_funded");
    expect(data.amount_received_atom).toBeGreaterThan(0);
    expect(data.amount_received_atom).toBeLessThan(data.amount_atom);
  },
  "customer.subscription.created": (data, event) => {
    expect(data.object).toBe("subscription");
    expect(event.previous_data).toBeNull();
  },
  "customer.subscription.updated": (_data, event) => expect(event.previous_data).not.toBeNull(),
  "customer.subscription.paused": status("paused"),
  "customer.subscription.resumed": status("active"),
  "customer.subscription.cancelled": (data) => {
    expect(data.status).toBe("cancelled");
    expect(data.cancelled_at).toBeTruthy();
  },
  "customer.subscription.trial_will_end": (data, event) => {
    expect(data.status).toBe("trialing");
    const left = Date.parse(data.trial_end) - Date.parse(event.created);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(3 * DAY);
    expect(event.actor_type).toBe("system");
  },
  "invoice.created": status("draft"),
  "invoice.finalized": (data) => expect(["open", "paid"]).toContain(data.status),
  "invoice.paid": (data) => {
    expect(data.status).toBe("paid");
    expect(data.due_amount_atom).toBe(0);
    expect(data.paid_amount_atom).toBe(data.total_amount_atom);
  },
  "invoice.payment_succeeded": status("paid"),
  "invoice.payment_failed": status("open"),
  "invoice.payment_action_required": status("open"),
  "invoice.overdue": (data, event) => {
    expect(data.status).toBe("open");
    expect(Date.parse(data.due_date)).toBeLessThanOrEqual(Date.parse(event.created));
    expect(event.actor_type).toBe("system");
  },
  "invoice.voided": status("void"),
  "invoice.marked_uncollectible": status("uncollectible"),
  "invoice.refunded": status("paid"),
  "invoice.upcoming": (data, event) => {
    expect(data.subscription).toMatch(/^sub_/);
    expect(data.total_amount_atom).toBeGreaterThan(0);
    expect(event.actor_type).toBe("system");
  },
  "customer.created": (data) => expect(data.email).toContain("@"),
  "customer.updated": (_data, event) => expect(event.previous_data).not.toBeNull(),
  "customer.deleted": deleted,
  "customer.discount.created": (data) => expect(data.coupon.id).toMatch(/^cpn_/),
  "customer.discount.updated": (data, event) => expect(data.coupon.id).not.toBe(event.previous_data.coupon.id),
  "customer.discount.deleted": (_data, event) => expect(event.previous_data).not.toBeNull(),
  "coupon.created": (data) => expect(data.valid).toBe(true),
  "coupon.updated": (_data, event) => expect(event.previous_data).not.toBeNull(),
  "coupon.deleted": deleted,
  "price.created": (data) => expect(Number.isInteger(data.unit_amount_atom)).toBe(true),
  "price.updated": (_data, event) => expect(event.previous_data).not.toBeNull(),
  "price.deleted": deleted,
  "product.created": (data) => expect(data.object).toBe("product"),
  "product.updated": (_data, event) => expect(event.previous_data).not.toBeNull(),
  "product.deleted": deleted,
  "refund.created": status("pending"),
  "refund.updated": status("succeeded"),
  "refund.failed": (data) => {
    expect(data.status).toBe("failed");
    expect(data.failure_reason).toBeTruthy();
  },
  "api_token.created": (data, event) => {
    expect(data.status).toBe("active");
    expectAudit(event, "user");
  },
  "api_token.revoked": (data, event) => {
    expect(data.status).toBe("revoked");
    expect(event.previous_data.status).toBe("active");
    expectAudit(event, "user");
  },
  "api_key.rolled": (data, event) => {
    expect(data.display).not.toBe(event.previous_data.display);
    expect(data.previous_secret_expires_at).toBeNull();
    expectAudit(event, "user");
  },
  "webhook_endpoint.created": (data, event) => {
    expect(data.object).toBe("webhook_endpoint");
    expectAudit(event, "api_key");
  },
  "webhook_endpoint.updated": (data, event) => {
    expect(data.description).not.toBe(event.previous_data.description);
    expectAudit(event, "api_key");
  },
  "webhook_endpoint.deleted": (data, event) => {
    expect(data.deleted).toBe(true);
    expectAudit(event, "api_key");
  },
  "webhook_endpoint.disabled": (data, event) => {
    expect([data.enabled, event.previous_data.enabled]).toEqual([false, true]);
    expectAudit(event, "api_key");
  },
  "webhook_endpoint.enabled": (data, event) => {
    expect([data.enabled, event.previous_data.enabled]).toEqual([true, false]);
    expectAudit(event, "api_key");
  },
  "webhook_endpoint.secret_rotated": (_data, event) => expectAudit(event, "api_key"),
  "user.signed_in": (data, event) => expectUserEvent(data, event),
  "user.sign_in_failed": (data, event) => expectUserEvent(data, event),
  "user.signed_out": (data, event) => expectUserEvent(data, event, false),
  "user.password_changed": (data, event) => expectUserEvent(data, event),
  "member.invited": (data, event) => expectMemberEvent(data, event, "invited", /^inv_/),
  "member.invitation_revoked": (data, event) => {
    expectMemberEvent(data, event, "invitation_revoked", /^inv_/);
    expect(event.previous_data.status).toBe("invited");
  },
  "member.joined": (data, event) => {
    expectMemberEvent(data, event, "active", /^user_/);
    expect(data.invitation).toMatch(/^inv_/);
    expect(event.actor_id).toBe(data.id);
  },
  "member.role_changed": (data, event) => {
    expectMemberEvent(data, event, "active", /^user_/);
    expect(event.previous_data.role).not.toBe(data.role);
  },
  "member.removed": (data, event) => {
    expectMemberEvent(data, event, "removed", /^user_/);
    expect(event.previous_data.status).toBe("active");
  },
  "tax_rate.created": (data) => expect(data.object).toBe("tax_rate"),
  "tax_rate.updated": (data) => expect(data.active).toBe(false),
  "payment_processor.connected": (data) => {
    expect(data).toMatchObject({ object: "payment_processor", processor: "stripe", secret_key_last4: "flow", livemode: false });
    expect(JSON.stringify(data)).not.toMatch(/sk_test_|whsec_/);
  },
  "payment_processor.disconnected": (data) => expect(data).toMatchObject({ object: "payment_processor", webhook_endpoint_id: expect.stringMatching(/^we_/) }),
  "account.settings_updated": (data, event) => {
    expect(data.object).toBe("account_settings");
    expect(event.previous_data).not.toBeNull();
  },
  "meter.created": status("active"),
  "meter.updated": (data, event) => expect(event.previous_data.display_name).not.toBe(data.display_name),
  "meter.deactivated": status("inactive"),
  "meter.reactivated": status("active"),
  "feature.created": (data) => expect(data.object).toBe("feature"),
  "product_feature.attached": (data) => expect(data.feature.object).toBe("feature"),
  "product_feature.detached": (data) => expect(data.object).toBe("product_feature"),
  "customer.entitlements.updated": (data, event) =>
    expect(JSON.stringify(data.items)).not.toBe(JSON.stringify(event.previous_data.items)),
  "portal_configuration.updated": (data, event) => expect(data).not.toEqual(event.previous_data),
  "credit_note.created": status("issued"),
  "credit_note.voided": status("void"),
  "customer.balance_transaction.created": (data) => expect(data.ending_balance_atom).toEqual(expect.any(Number)),
  "subscription_change_request.scheduled": (data) => expect(data).toMatchObject({ status: "scheduled", effective: "period_end", effective_at: expect.any(String) }),
  "subscription_change_request.applied": (data) => expect(data).toMatchObject({ status: "applied", effective: "period_end", applied_at: expect.any(String) }),
  "subscription_change_request.canceled": (data) => expect(data).toMatchObject({ status: "canceled", cancellation_reason: expect.any(String) }),
  "payment_method.attached": (data) =>
    expect(data).toMatchObject({ object: "payment_method", processor: "sandbox", card: { brand: "visa", last4: expect.stringMatching(/^\d{4}$/) }, detached_at: null }),
  "payment_method.detached": (data) => expect(data).toMatchObject({ object: "payment_method", detached_at: expect.any(String) }),
  "payment_method.updated": (data) => expect(data).toMatchObject({ object: "payment_method", metadata: { label: "office" }, card: { exp_month: 3 } }),
  "dispute.created": (data, event) => {
    expect(data).toMatchObject({ object: "dispute", processor: "stripe", processor_dispute: expect.stringMatching(/^du_/), amount_atom: 2500, payment: expect.stringMatching(/^py_/) });
    expect(event.previous_data).toBeNull();
    expect(event.actor_type).toBe("system");
  },
  "dispute.updated": (data, event) => {
    expect(data.status).toBe("under_review");
    expect(event.previous_data.status).toBe("needs_response");
  },
  "dispute.closed": (data) => expect(["won", "lost", "warning_closed"]).toContain(data.status),
  "alert.triggered": (data) =>
    expect(data).toMatchObject({ object: "alert_trigger", alert: expect.stringMatching(/^alrt_/), alert_type: "usage_threshold", customer: expect.stringMatching(/^cus_/), value: 1, threshold: 1, resolved_at: null }),
  "alert.resolved": (data) => expect(data).toMatchObject({ object: "alert_trigger", resolved_at: expect.any(String) }),
  "credit_grant.created": (data, event) => {
    expect(data).toMatchObject({ object: "credit_grant", status: "active" });
    expect(data.remaining_atom).toBe(data.amount_atom);
    expect(event.previous_data).toBeNull();
  },
  "credit_grant.applied": (data, event) => {
    expect(data.applied_atom).toBeGreaterThan(0);
    expect(data.remaining_atom).toBeLessThan(event.previous_data.remaining_atom);
  },
  "credit_grant.depleted": (data) => expect(data).toMatchObject({ status: "depleted", remaining_atom: 0 }),
  "credit_grant.expired": (data) => expect(data).toMatchObject({ status: "expired", expired_at: expect.any(String) }),
  "credit_grant.voided": (data) => expect(data).toMatchObject({ status: "voided", voided_at: expect.any(String) }),
  "credit_grant.reinstated": (data, event) => {
    expect(data).toMatchObject({ object: "credit_grant", status: "active" });
    expect(data.remaining_atom).toBeGreaterThan(event.previous_data.remaining_atom);
  },
  "email.sent": (data) => expect(data).toMatchObject({ object: "email", status: "sent", sent_at: expect.any(String), smtp_response: expect.stringMatching(/^250/) }),
  "email.failed": (data) => expect(data).toMatchObject({ object: "email", status: expect.stringMatching(/^(failed|rate_limited)$/), smtp_response: expect.any(String) }),
};

/** A user's audit event: the user (never a password or its hash), as actor; the address and agent of the request when it had one. */
function expectUserEvent(data: Json, event: Json, fromRequest = true): void {
  expect(data).toEqual({ id: expect.stringMatching(/^user_/), object: "user", email: expect.stringContaining("@"), name: "Test User", role: "owner" });
  expect([event.actor_type, event.actor_id]).toEqual(["user", data.id]);
  if (fromRequest) expect(event.metadata.client_address).toEqual(expect.any(String));
  expect(JSON.stringify(event)).not.toMatch(/password_hash|scrypt\$|correct horse/);
}

/** A membership audit event: the membership, a user as actor, the action's request id, never a link or a password. */
function expectMemberEvent(data: Json, event: Json, status: string, id: RegExp): void {
  expect(data).toMatchObject({ object: "member", status, email: expect.stringContaining("@"), id: expect.stringMatching(id) });
  expect([event.actor_type, event.actor_id]).toEqual(["user", expect.stringMatching(/^user_/)]);
  expect(event.request_id).toMatch(/^req_/);
  expect(JSON.stringify(event)).not.toMatch(/inv_[0-9a-z]{32}|password_hash|scrypt\$|correct horse/);
}

/** An audit event: its actor, the request's address and user agent, its request, and no secret anywhere. */
function expectAudit(event: Json, actorType: "user" | "api_key"): void {
  expect(event.actor_type).toBe(actorType);
  expect(event.actor_id).toMatch(actorType === "user" ? /^user_/ : /^key_/);
  expect(event.metadata).toEqual({ client_address: expect.any(String), user_agent: expect.any(String) });
  expect(event.request_id).toMatch(/^req_/);
  expect(JSON.stringify(event)).not.toMatch(/whsec_|st_prod_[0-9a-z]{6}|pt_prod_[0-9a-z]{6}|rk_prod_[0-9a-z]{6}|token_hash|secret_ciphertext/);
}

/** The types of the access audit trail, beside the spec's 51 (lib/events/catalogue.ts). */
const AUDIT_TYPES = EVENT_TYPES.filter((type) => /^(api_token|api_key|webhook_endpoint|user)\./.test(type));

describe("the event catalogue, produced by real flows", () => {
  it("covers the spec's 51 types and every type of our own", () => {
    expect(SPEC_EVENT_TYPES).toHaveLength(51);
    expect(AUDIT_TYPES).toHaveLength(13);
    expect(Object.keys(IMPLIES).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it.each([...EVENT_TYPES])("%s was produced, with the entity state it implies", async (type) => {
    const page = await ok(client.get(`/${account}/events?event_type=${type}&limit=100`));
    expect(page.total, `no ${type} event`).toBeGreaterThan(0);
    for (const event of page.items) {
      expect(["api_key", "system", "customer", "user"]).toContain(event.actor_type);
      IMPLIES[type as keyof typeof IMPLIES](event.data, event);
    }
  });
});
