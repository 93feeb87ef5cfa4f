import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { checkoutSessions } from "@/db/schema";
import { issueToken } from "@/lib/auth/tokens";
import { checkoutSessionExpiry } from "@/lib/checkout/expiry";
import { api, apiBaseUrl, statusOf, type Client, type Json, type ApiPath, type AccountPath } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CS = /^cs_prod_[0-9a-z]{29}$/;
const DECLINE = "Your card was declined (sandbox payment method pm_sandbox_declined).";
const AUTHENTICATION = /needs an extra authentication step/;
const LIVE_REFUSAL = "sandbox payment methods work only on sandbox accounts; a live account is charged through a connected processor (PUT /payment-processor)";
const HOUR = 3_600_000;
const SUCCESS = "https://shop.example.com/thanks?session_id={CHECKOUT_SESSION_ID}";

const appOrigin = () => apiBaseUrl().replace(/\/api$/, "");
/** The hosted page's caller: no token at all. */
const browser = api();

type Catalogue = {
  tshirt: string;
  sticker: string;
  euroMug: string;
  free: string;
  monthly: string;
  addon: string;
  yearly: string;
  archived: string;
  ofArchivedProduct: string;
};

let merchant: Merchant;
let sandbox: Client;
let account: string;
let publishable: Client;
let catalogue: Catalogue;

async function created(client: Client, path: ApiPath<"post">, body: Json): Promise<Json> {
  const response = await client.post(path, body);
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** A sandbox catalogue: one-time and recurring prices, an archived price and a price of an archived product. */
async function makeCatalogue(client: Client, accountId: string): Promise<Catalogue> {
  const product = (await created(client, `/${accountId}/products`, { name: "T-shirt" })).id;
  const plan = (await created(client, `/${accountId}/products`, { name: "Pro plan" })).id;
  const gone = (await created(client, `/${accountId}/products`, { name: "Old thing" })).id;
  const price = async (body: Json, productId = product) =>
    (await created(client, `/${accountId}/prices`, { product: productId, currency: "usd", type: "one_time", ...body })).id as string;
  const catalogue: Catalogue = {
    tshirt: await price({ unit_amount_atom: 1500 }),
    sticker: await price({ unit_amount_atom: 250, nickname: "Sticker" }),
    euroMug: await price({ unit_amount_atom: 900, currency: "eur" }),
    free: await price({ unit_amount_atom: 0 }),
    monthly: await price({ unit_amount_atom: 2000, type: "recurring", recurring: { interval: "month" } }, plan),
    addon: await price({ unit_amount_atom: 500, type: "recurring", recurring: { interval: "month" } }, plan),
    yearly: await price({ unit_amount_atom: 20000, type: "recurring", recurring: { interval: "year" } }, plan),
    archived: await price({ unit_amount_atom: 700 }),
    ofArchivedProduct: await price({ unit_amount_atom: 800 }, gone),
  };
  expect((await client.post(`/${accountId}/prices/${catalogue.archived}`, { active: false })).status).toBe(200);
  expect((await client.post(`/${accountId}/products/${gone}`, { active: false })).status).toBe(200);
  return catalogue;
}

beforeAll(async () => {
  merchant = await newMerchant();
  account = merchant.sandboxAccountId;
  sandbox = api(merchant.sandboxSecret.token);
  const token = await issueToken(await getDb(), { accountId: account, kind: "publishable", name: "checkout page" });
  publishable = api(token.token);
  catalogue = await makeCatalogue(sandbox, account);
});

const sessions = (accountId = account) => `/${accountId}/checkout/sessions` as const;

async function createSession(body: Json = {}, client: Client = sandbox, accountId = account): Promise<Json> {
  return created(client, sessions(accountId), {
    mode: "payment",
    line_items: [{ price: catalogue.tshirt, quantity: 2 }, { price: catalogue.sticker }],
    success_url: SUCCESS,
    cancel_url: "https://shop.example.com/cart",
    ...body,
  });
}

const subscriptionSession = (body: Json = {}) =>
  createSession({ mode: "subscription", line_items: [{ price: catalogue.monthly }, { price: catalogue.addon, quantity: 2 }], ...body });

const complete = (id: string, body: Json, headers: Record<string, string> = {}) =>
  browser.post(`/checkout/sessions/${id}/complete`, body, { headers });

/** The aggregate's events, oldest first. */
async function eventsOf(aggregateId: string, client: Client = sandbox, accountId = account): Promise<Json[]> {
  const response = await client.get(`/${accountId}/events?aggregate_id=${aggregateId}&limit=100`);
  expect(response.status, response.text).toBe(200);
  return [...response.body.items].reverse();
}
const typesOf = async (aggregateId: string) => (await eventsOf(aggregateId)).map((event) => event.type);

const getSession = async (id: string) => {
  const response = await sandbox.get(`${sessions()}/${id}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
};
const get = async (path: AccountPath<"get">) => {
  const response = await sandbox.get(`/${account}${path}`);
  expect(response.status, response.text).toBe(200);
  return response.body;
};
const uniqueEmail = (label: string) => `${label}-${Math.random().toString(36).slice(2, 10)}@example.com`;
const customersWith = async (email: string) => ((await get("/customers?limit=100")).items as Json[]).filter((c) => c.email === email);

describe("creating checkout sessions", () => {
  it("creates a payment session with a secret token: the full object, its hosted url and checkout.session.created", async () => {
    const response = await sandbox.post(sessions(), {
      mode: "payment",
      line_items: [{ price: catalogue.tshirt, quantity: 2 }, { price: catalogue.sticker }],
      success_url: SUCCESS,
      cancel_url: "https://shop.example.com/cart",
      customer_email: "jenny@example.com",
      metadata: { order: "42" },
    });
    expect(response.status, response.text).toBe(201);
    const session = response.body;
    expect(session).toEqual({
      id: expect.stringMatching(CS),
      object: "checkout_session",
      mode: "payment",
      status: "open",
      payment_status: "unpaid",
      url: `${appOrigin()}/checkout/${session.id}`,
      success_url: SUCCESS,
      cancel_url: "https://shop.example.com/cart",
      customer: null,
      customer_email: "jenny@example.com",
      currency: "usd",
      line_items: [
        { price: catalogue.tshirt, quantity: 2, description: "T-shirt", unit_amount_atom: 1500, amount_atom: 3000 },
        { price: catalogue.sticker, quantity: 1, description: "T-shirt (Sticker)", unit_amount_atom: 250, amount_atom: 250 },
      ],
      amount_total_atom: 3250,
      subscription_data: null,
      payment_intent: null,
      subscription: null,
      invoice: null,
      expires_at: expect.stringMatching(ISO),
      completed_at: null,
      expired_at: null,
      metadata: { order: "42" },
      livemode: false,
      created: expect.stringMatching(ISO),
      updated: session.created,
    });
    // Default lifetime: 24 hours from the account's current time.
    expect(Date.parse(session.expires_at) - Date.parse(session.created)).toBe(24 * HOUR);
    expect(await getSession(session.id)).toEqual(session);

    const events = await eventsOf(session.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "checkout.session.created",
      aggregate_type: "checkout_session",
      data: session,
      previous_data: null,
      actor_type: "api_key",
      actor_id: merchant.sandboxSecret.id,
    });
  });

  it("creates with a publishable token (a browser), which may not name a customer nor read sessions", async () => {
    const session = await createSession({ mode: "subscription", line_items: [{ price: catalogue.monthly }], subscription_data: { trial_period_days: 14 } }, publishable);
    expect(session).toMatchObject({ mode: "subscription", status: "open", subscription_data: { trial_period_days: 14 }, amount_total_atom: 2000 });
    const [event] = await eventsOf(session.id);
    expect(event).toMatchObject({ type: "checkout.session.created", actor_type: "api_key", data: session });
    expect(event.actor_id).not.toBe(merchant.sandboxSecret.id);

    const customer = (await created(sandbox, `/${account}/customers`, { email: "known@example.com" })).id;
    const refused = await publishable.post(sessions(), { mode: "payment", line_items: [{ price: catalogue.tshirt }], success_url: SUCCESS, customer });
    expectProblem(refused, 422, /Publishable tokens cannot name an existing customer/);
    expect(refused.body.errors).toEqual([{ field: "customer", message: expect.any(String) }]);
    // Only creation is on the publishable allow-list.
    expectProblem(await publishable.get(`${sessions()}/${session.id}`), 403);
    expectProblem(await publishable.get(sessions()), 403);
    expectProblem(await publishable.post(`${sessions()}/${session.id}/expire`), 403);
    // The unscoped path acts on the token's account.
    const unscoped = await publishable.post("/checkout/sessions", { mode: "payment", line_items: [{ price: catalogue.tshirt }], success_url: SUCCESS });
    expect(unscoped.status, unscoped.text).toBe(201);
  });

  it("takes an existing customer and expires_at from 30 minutes to 24 hours ahead", async () => {
    const customer = (await created(sandbox, `/${account}/customers`, { email: "named@example.com" })).id;
    const clock = await get("/test-clock");
    const expiresAt = new Date(Date.parse(clock.now) + HOUR).toISOString();
    const session = await createSession({ customer, expires_at: expiresAt });
    expect(session).toMatchObject({ customer, customer_email: null, expires_at: expiresAt });
  });

  const line = (price: () => string, quantity?: number) => () => ({ price: price(), ...(quantity ? { quantity } : {}) });
  const cases: [string, () => Json, number, string][] = [
    ["missing success_url", () => ({ success_url: undefined }), 400, "success_url"],
    ["missing mode", () => ({ mode: undefined }), 400, "mode"],
    ["missing line_items", () => ({ line_items: undefined }), 400, "line_items"],
    ["relative success_url", () => ({ success_url: "/thanks" }), 422, "success_url"],
    ["ftp success_url", () => ({ success_url: "ftp://shop.example.com/" }), 422, "success_url"],
    ["javascript cancel_url", () => ({ cancel_url: "javascript:alert(1)" }), 422, "cancel_url"],
    ["no line items", () => ({ line_items: [] }), 422, "line_items"],
    ["unknown price", () => ({ line_items: [{ price: "price_prod_00000000000000000000000000000" }] }), 422, "line_items.0.price"],
    ["mixed currencies", () => ({ line_items: [line(() => catalogue.tshirt)(), line(() => catalogue.euroMug)()] }), 422, "line_items.1.price"],
    ["recurring price in payment mode", () => ({ line_items: [line(() => catalogue.monthly)()] }), 422, "line_items.0.price"],
    ["one-time price in subscription mode", () => ({ mode: "subscription", line_items: [line(() => catalogue.monthly)(), line(() => catalogue.tshirt)()] }), 422, "line_items.1.price"],
    ["recurring prices on two intervals", () => ({ mode: "subscription", line_items: [line(() => catalogue.monthly)(), line(() => catalogue.yearly)()] }), 422, "line_items.1.price"],
    ["archived price", () => ({ line_items: [line(() => catalogue.archived)()] }), 422, "line_items.0.price"],
    ["price of an archived product", () => ({ line_items: [line(() => catalogue.ofArchivedProduct)()] }), 422, "line_items.0.price"],
    ["the same price twice", () => ({ line_items: [line(() => catalogue.tshirt)(), line(() => catalogue.tshirt)()] }), 422, "line_items.1.price"],
    ["quantity 0", () => ({ line_items: [line(() => catalogue.tshirt)(), { price: catalogue.sticker, quantity: 0 }] }), 422, "line_items.1.quantity"],
    ["a payment of 0", () => ({ line_items: [line(() => catalogue.free)()] }), 422, "line_items"],
    ["expires_at 10 minutes ahead", () => ({ expires_at: new Date(Date.now() + 10 * 60_000).toISOString() }), 422, "expires_at"],
    ["expires_at 25 hours ahead", () => ({ expires_at: new Date(Date.now() + 25 * HOUR).toISOString() }), 422, "expires_at"],
    ["expires_at in the past", () => ({ expires_at: new Date(Date.now() - HOUR).toISOString() }), 422, "expires_at"],
    ["customer and customer_email", () => ({ customer: "cus_prod_00000000000000000000000000000", customer_email: "a@example.com" }), 422, "customer_email"],
    ["unknown customer", () => ({ customer: "cus_prod_00000000000000000000000000000" }), 422, "customer"],
    ["invalid customer_email", () => ({ customer_email: "not an email" }), 422, "customer_email"],
    ["subscription_data in payment mode", () => ({ subscription_data: { trial_period_days: 7 } }), 422, "subscription_data"],
    ["a trial of 0 days", () => ({ mode: "subscription", line_items: [line(() => catalogue.monthly)()], subscription_data: { trial_period_days: 0 } }), 422, "subscription_data.trial_period_days"],
    ["an unknown field", () => ({ allow_promotion_codes: true }), 422, ""],
  ];

  it.each(cases)("refuses %s (%i on %s) and creates nothing", async (_name, override, status, field) => {
    const before = (await get("/checkout/sessions?limit=1")).total;
    const body: Json = {
      mode: "payment",
      line_items: [{ price: catalogue.tshirt }],
      success_url: SUCCESS,
      ...override(),
    };
    for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
    const response = await sandbox.post(sessions(), body);
    expectProblem(response, status);
    if (field) expect(response.body.errors.map((e: Json) => e.field)).toContain(field);
    expect((await get("/checkout/sessions?limit=1")).total).toBe(before);
  });

  it("refuses another account's price and customer (422), and another account's path (403)", async () => {
    const other = await newMerchant();
    const otherSandbox = api(other.sandboxSecret.token);
    const otherCatalogue = await makeCatalogue(otherSandbox, other.sandboxAccountId);
    const foreignPrice = await sandbox.post(sessions(), { mode: "payment", line_items: [{ price: otherCatalogue.tshirt }], success_url: SUCCESS });
    expectProblem(foreignPrice, 422, /No such price/);
    const foreignCustomer = (await created(otherSandbox, `/${other.sandboxAccountId}/customers`, { email: "x@example.com" })).id;
    expectProblem(await sandbox.post(sessions(), { mode: "payment", line_items: [{ price: catalogue.tshirt }], success_url: SUCCESS, customer: foreignCustomer }), 422, /No such customer/);
    expectProblem(await sandbox.post(sessions(other.sandboxAccountId), { mode: "payment", line_items: [{ price: catalogue.tshirt }], success_url: SUCCESS }), 403);
  });
});

describe("reading and changing checkout sessions", () => {
  it("lists newest first in the envelope, filtered by status and customer", async () => {
    const fresh = await newMerchant();
    const client = api(fresh.sandboxSecret.token);
    const cat = await makeCatalogue(client, fresh.sandboxAccountId);
    const customer = (await created(client, `/${fresh.sandboxAccountId}/customers`, { email: "l@example.com" })).id;
    const body = { mode: "payment", line_items: [{ price: cat.tshirt }], success_url: SUCCESS };
    const first = await created(client, sessions(fresh.sandboxAccountId), body);
    const second = await created(client, sessions(fresh.sandboxAccountId), { ...body, customer });
    const third = await created(client, sessions(fresh.sandboxAccountId), body);
    expect((await client.post(`${sessions(fresh.sandboxAccountId)}/${third.id}/expire`)).status).toBe(200);

    const all = await client.get(`${sessions(fresh.sandboxAccountId)}?limit=2`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ items: [expect.objectContaining({ id: third.id, status: "expired" }), second], total: 3, has_more: true });
    expect((await client.get(`${sessions(fresh.sandboxAccountId)}?offset=2`)).body.items).toEqual([first]);
    expect((await client.get(`${sessions(fresh.sandboxAccountId)}?status=open`)).body.items.map((s: Json) => s.id)).toEqual([second.id, first.id]);
    expect((await client.get(`${sessions(fresh.sandboxAccountId)}?customer=${customer}`)).body.items).toEqual([second]);
    expectProblem(await client.get(`${sessions(fresh.sandboxAccountId)}?status=paid`), 400);
    // The unscoped path lists the token's account.
    expect((await client.get("/checkout/sessions")).body.total).toBe(3);
  });

  it("updates metadata and customer_email while open (checkout.session.updated with previous_data); no change, no event", async () => {
    const session = await createSession({ metadata: { a: "1", b: "2" } });
    const response = await sandbox.post(`${sessions()}/${session.id}`, { metadata: { a: null, c: "3" }, customer_email: "new@example.com" });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      ...session,
      metadata: { b: "2", c: "3" },
      customer_email: "new@example.com",
      updated: expect.stringMatching(ISO),
    });
    const again = await sandbox.post(`${sessions()}/${session.id}`, { metadata: { c: "3" }, customer_email: "new@example.com" });
    expect(again.body).toEqual(response.body);
    const events = await eventsOf(session.id);
    expect(events.map((e) => e.type)).toEqual(["checkout.session.created", "checkout.session.updated"]);
    expect(events[1]).toMatchObject({ data: response.body, previous_data: session });

    const cleared = await sandbox.post(`${sessions()}/${session.id}`, { customer_email: null });
    expect(cleared.body.customer_email).toBeNull();

    const customer = (await created(sandbox, `/${account}/customers`, { email: "c@example.com" })).id;
    const forCustomer = await createSession({ customer });
    expectProblem(await sandbox.post(`${sessions()}/${forCustomer.id}`, { customer_email: "other@example.com" }), 422, /customer_email/);
    expectProblem(await sandbox.post(`${sessions()}/${session.id}`, { success_url: "https://elsewhere.example.com" }), 422);
  });

  it("expires an open session (checkout.session.expired); then nothing more can change it", async () => {
    const session = await createSession();
    const response = await sandbox.post(`${sessions()}/${session.id}/expire`);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      ...session,
      status: "expired",
      expired_at: expect.stringMatching(ISO),
      updated: response.body.expired_at,
    });
    const events = await eventsOf(session.id);
    expect(events.map((e) => e.type)).toEqual(["checkout.session.created", "checkout.session.expired"]);
    expect(events[1]).toMatchObject({ data: response.body, previous_data: session, actor_type: "api_key" });

    expectProblem(await sandbox.post(`${sessions()}/${session.id}/expire`), 409, /expired; only open sessions/);
    expectProblem(await sandbox.post(`${sessions()}/${session.id}`, { metadata: { x: "1" } }), 409);
    expectProblem(await sandbox.delete(`${sessions()}/${session.id}`), 409);
    expectProblem(await complete(session.id, { email: "late@example.com", payment_method: "pm_sandbox_succeeds" }), 409, /expired/);
    expect(await getSession(session.id)).toEqual(response.body);
    expect(await typesOf(session.id)).toHaveLength(2);
    expect(await customersWith("late@example.com")).toEqual([]);
  });

  it("deletes an open session (soft, checkout.session.deleted): 404 everywhere afterwards", async () => {
    const session = await createSession();
    const response = await sandbox.delete(`${sessions()}/${session.id}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ id: session.id, object: "checkout_session", deleted: true });
    const events = await eventsOf(session.id);
    expect(events.map((e) => e.type)).toEqual(["checkout.session.created", "checkout.session.deleted"]);
    expect(events[1].data).toEqual({ ...session, updated: expect.stringMatching(ISO), deleted: true });
    expect(events[1].previous_data).toEqual(session);

    expectProblem(await sandbox.get(`${sessions()}/${session.id}`), 404);
    expectProblem(await sandbox.delete(`${sessions()}/${session.id}`), 404);
    expectProblem(await sandbox.post(`${sessions()}/${session.id}/expire`), 404);
    expectProblem(await complete(session.id, { email: "gone@example.com", payment_method: "pm_sandbox_succeeds" }), 404);
    expect((await get("/checkout/sessions?limit=100")).items.map((s: Json) => s.id)).not.toContain(session.id);
    expect(await statusOf(session.url)).toBe(404);
  });

  it("keeps accounts apart: another account's session is 404 under your path, your path is 403 for its token", async () => {
    const session = await createSession();
    const other = await newMerchant();
    const otherSandbox = api(other.sandboxSecret.token);
    for (const response of [
      await otherSandbox.get(`${sessions(other.sandboxAccountId)}/${session.id}`),
      await otherSandbox.post(`${sessions(other.sandboxAccountId)}/${session.id}`, { metadata: { x: "y" } }),
      await otherSandbox.post(`${sessions(other.sandboxAccountId)}/${session.id}/expire`),
      await otherSandbox.delete(`${sessions(other.sandboxAccountId)}/${session.id}`),
      await otherSandbox.get(`/checkout/sessions/${session.id}`),
    ]) {
      expectProblem(response, 404, /No such checkout session/);
    }
    expectProblem(await otherSandbox.get(`${sessions()}/${session.id}`), 403);
    expect((await otherSandbox.get(sessions(other.sandboxAccountId))).body.total).toBe(0);
    // The live account of the same organization is another account too.
    expectProblem(await merchant.client.get(`${sessions(merchant.accountId)}/${session.id}`), 404);
    expect(await getSession(session.id)).toEqual(session);
  });
});

describe("completing a payment session (the hosted page's call)", () => {
  it("creates the customer, pays the total and completes the session; every event by the customer, one correlation id", async () => {
    const email = uniqueEmail("buyer");
    const session = await createSession();
    const response = await complete(session.id, { email, payment_method: "pm_sandbox_succeeds" }, { "X-Correlation-Id": "checkout-pay-1" });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      object: "checkout_completion",
      checkout_session: session.id,
      status: "complete",
      payment_status: "paid",
      redirect_url: `https://shop.example.com/thanks?session_id=${session.id}`,
      last_payment_error: null,
    });

    const [customer] = await customersWith(email);
    expect(customer).toBeDefined();
    const after = await getSession(session.id);
    expect(after).toEqual({
      ...session,
      status: "complete",
      payment_status: "paid",
      customer: customer.id,
      customer_email: email,
      payment_intent: expect.stringMatching(/^pi_prod_/),
      completed_at: expect.stringMatching(ISO),
      updated: after.completed_at,
    });
    const intent = await get(`/payment-intents/${after.payment_intent}`);
    expect(intent).toMatchObject({
      amount_atom: 3250,
      amount_received_atom: 3250,
      currency: "usd",
      customer: customer.id,
      status: "succeeded",
      payment_method: "pm_sandbox_succeeds",
      metadata: { checkout_session: session.id },
    });
    const payments = (await get(`/payments?payment_intent=${intent.id}`)).items;
    expect(payments).toEqual([expect.objectContaining({ status: "succeeded", amount_atom: 3250 })]);

    const sessionEvents = await eventsOf(session.id);
    expect(sessionEvents.map((e) => e.type)).toEqual(["checkout.session.created", "checkout.session.completed"]);
    expect(sessionEvents[1]).toMatchObject({ data: after, previous_data: session, actor_type: "customer", actor_id: customer.id, correlation_id: "checkout-pay-1" });

    const customerEvents = await eventsOf(customer.id);
    expect(customerEvents).toEqual([expect.objectContaining({ type: "customer.created", actor_type: "customer", actor_id: null, correlation_id: "checkout-pay-1" })]);
    const intentEvents = await eventsOf(intent.id);
    expect(intentEvents.map((e) => e.type)).toEqual(["payment_intent.created", "payment_intent.processing", "payment_intent.succeeded"]);
    expect(intentEvents.every((e) => e.actor_type === "customer" && e.actor_id === customer.id && e.correlation_id === "checkout-pay-1")).toBe(true);
    expect(await eventsOf(payments[0].id)).toEqual([expect.objectContaining({ type: "payment.succeeded", actor_type: "customer" })]);

    // Paying twice is refused, and changes nothing.
    expectProblem(await complete(session.id, { email, payment_method: "pm_sandbox_succeeds" }), 409, /is complete; only open sessions can be completed/);
    expectProblem(await sandbox.post(`${sessions()}/${session.id}/expire`), 409);
    expectProblem(await sandbox.delete(`${sessions()}/${session.id}`), 409);
    expect(await getSession(session.id)).toEqual(after);
    expect((await get(`/payment-intents?customer=${customer.id}`)).items).toHaveLength(1);
  });

  it("finds the returning customer by email: the newest one that is not deleted, and creates no customer", async () => {
    const email = uniqueEmail("returning");
    const older = (await created(sandbox, `/${account}/customers`, { email })).id;
    const newer = (await created(sandbox, `/${account}/customers`, { email })).id;
    const deleted = (await created(sandbox, `/${account}/customers`, { email })).id;
    expect((await sandbox.delete(`/${account}/customers/${deleted}`)).status).toBe(200);
    const session = await createSession();
    const response = await complete(session.id, { email, payment_method: "pm_sandbox_succeeds" });
    expect(response.body.status).toBe("complete");
    expect((await getSession(session.id)).customer).toBe(newer);
    expect((await customersWith(email)).map((c: Json) => c.id)).toEqual([newer, older]);
  });

  it("uses the session's customer or customer_email; without either, email is required (400)", async () => {
    const customer = await created(sandbox, `/${account}/customers`, { email: uniqueEmail("named") });
    const forCustomer = await createSession({ customer: customer.id });
    const paid = await complete(forCustomer.id, { email: "ignored@example.com", payment_method: "pm_sandbox_succeeds" });
    expect(paid.body.status).toBe("complete");
    expect(await getSession(forCustomer.id)).toMatchObject({ customer: customer.id, customer_email: customer.email });

    const email = uniqueEmail("prefilled");
    const prefilled = await createSession({ customer_email: email });
    expect((await complete(prefilled.id, { payment_method: "pm_sandbox_succeeds" })).body.status).toBe("complete");
    const [made] = await customersWith(email);
    expect(await getSession(prefilled.id)).toMatchObject({ customer: made.id, customer_email: email });

    const open = await createSession();
    const missing = await complete(open.id, { payment_method: "pm_sandbox_succeeds" });
    expectProblem(missing, 400, /email/);
    expect(missing.body.errors).toEqual([{ field: "email", message: "Required." }]);
    expectProblem(await complete(open.id, { email: "x@example.com" }), 400, /payment_method/);
    expectProblem(await complete(open.id, { email: "not an email", payment_method: "pm_sandbox_succeeds" }), 422);
    expectProblem(await complete(open.id, { email: "x@example.com", payment_method: "pm_card_visa" }), 422, /Unknown payment method/);
    expectProblem(await complete(open.id, { email: "x@example.com", payment_method: "pm_sandbox_partially_funded" }), 422, /paid in parts/);
    expectProblem(await complete("cs_prod_00000000000000000000000000000", { email: "x@example.com", payment_method: "pm_sandbox_succeeds" }), 404);
    expect(await getSession(open.id)).toEqual(open);
    expect(await customersWith("x@example.com")).toEqual([]);
  });

  it("declined, then paid with another method: the session stays open in between and the failed intent is canceled", async () => {
    const email = uniqueEmail("declined");
    const session = await createSession();
    const declined = await complete(session.id, { email, payment_method: "pm_sandbox_declined" });
    expect(declined.status, declined.text).toBe(200);
    expect(declined.body).toEqual({
      object: "checkout_completion",
      checkout_session: session.id,
      status: "open",
      payment_status: "unpaid",
      redirect_url: null,
      last_payment_error: DECLINE,
    });
    expect(await getSession(session.id)).toEqual(session);
    expect(await typesOf(session.id)).toEqual(["checkout.session.created"]);
    const [customer] = await customersWith(email);
    const [failedIntent] = (await get(`/payment-intents?customer=${customer.id}`)).items;
    expect(failedIntent).toMatchObject({ status: "canceled", last_payment_error: DECLINE, amount_received_atom: 0 });
    expect(await typesOf(failedIntent.id)).toEqual([
      "payment_intent.created",
      "payment_intent.processing",
      "payment_intent.payment_failed",
      "payment_intent.canceled",
    ]);
    expect((await get(`/payments?payment_intent=${failedIntent.id}`)).items).toEqual([expect.objectContaining({ status: "failed" })]);

    const needsAction = await complete(session.id, { email, payment_method: "pm_sandbox_requires_action" });
    expect(needsAction.body).toMatchObject({ status: "open", last_payment_error: expect.stringMatching(AUTHENTICATION) });

    const paid = await complete(session.id, { email, payment_method: "pm_sandbox_succeeds" });
    expect(paid.body).toMatchObject({ status: "complete", payment_status: "paid" });
    const after = await getSession(session.id);
    const intents = (await get(`/payment-intents?customer=${customer.id}`)).items;
    expect(intents.map((i: Json) => i.status)).toEqual(["succeeded", "canceled", "canceled"]);
    expect(after).toMatchObject({ status: "complete", customer: customer.id, payment_intent: intents[0].id });
    expect(await customersWith(email)).toHaveLength(1);
    expect(await typesOf(session.id)).toEqual(["checkout.session.created", "checkout.session.completed"]);
  });

  it("refuses a price archived since the session was made (409), and live sessions (422: no processor), creating nothing", async () => {
    const price = (await created(sandbox, `/${account}/prices`, { product: (await get(`/prices/${catalogue.tshirt}`)).product, currency: "usd", unit_amount_atom: 100, type: "one_time" })).id;
    const session = await createSession({ line_items: [{ price }] });
    expect((await sandbox.post(`/${account}/prices/${price}`, { active: false })).status).toBe(200);
    const email = uniqueEmail("archived");
    expectProblem(await complete(session.id, { email, payment_method: "pm_sandbox_succeeds" }), 409, /no longer offered/);
    expect(await customersWith(email)).toEqual([]);

    const liveCatalogue = await makeCatalogue(merchant.client, merchant.accountId);
    const live = await createSession({ line_items: [{ price: liveCatalogue.tshirt }] }, merchant.client, merchant.accountId);
    expect(live.livemode).toBe(true);
    const refused = await complete(live.id, { email, payment_method: "pm_sandbox_succeeds" });
    expectProblem(refused, 422);
    expect(refused.body.errors).toEqual([{ field: "payment_method", message: `${LIVE_REFUSAL}.` }]);
    expect((await merchant.client.get(`${sessions(merchant.accountId)}/${live.id}`)).body.status).toBe("open");
    expect((await merchant.client.get(`/${merchant.accountId}/customers`)).body.total).toBe(0);
  });
});

describe("completing a subscription session", () => {
  it("starts the subscription with the method as default and pays its first invoice", async () => {
    const email = uniqueEmail("subscriber");
    const session = await subscriptionSession({ metadata: { plan: "pro" } });
    expect(session).toMatchObject({ mode: "subscription", amount_total_atom: 3000, subscription_data: { trial_period_days: null } });
    const response = await complete(session.id, { email, payment_method: "pm_sandbox_succeeds" }, { "X-Correlation-Id": "checkout-sub-1" });
    expect(response.body).toMatchObject({ status: "complete", payment_status: "paid" });

    const after = await getSession(session.id);
    const [customer] = await customersWith(email);
    expect(after).toMatchObject({
      status: "complete",
      payment_status: "paid",
      customer: customer.id,
      subscription: expect.stringMatching(/^sub_prod_/),
      invoice: expect.stringMatching(/^in_prod_/),
      payment_intent: expect.stringMatching(/^pi_prod_/),
    });
    const subscription = await get(`/subscriptions/${after.subscription}`);
    expect(subscription).toMatchObject({
      customer: customer.id,
      status: "active",
      latest_invoice: after.invoice,
      default_payment_method: "pm_sandbox_succeeds",
      items: [
        { price: catalogue.monthly, quantity: 1 },
        { price: catalogue.addon, quantity: 2 },
      ],
      metadata: { checkout_session: session.id },
    });
    const invoice = await get(`/invoices/${after.invoice}`);
    expect(invoice).toMatchObject({ status: "paid", total_amount_atom: 3000, paid_amount_atom: 3000, subscription: subscription.id, payment_intent: after.payment_intent });

    const events = await eventsOf(session.id);
    expect(events.map((e) => e.type)).toEqual(["checkout.session.created", "checkout.session.completed"]);
    expect(events[1]).toMatchObject({ data: after, previous_data: session, actor_type: "customer", actor_id: customer.id });
    expect(await typesOf(subscription.id)).toEqual(["customer.subscription.created"]);
    expect(await typesOf(invoice.id)).toEqual(["invoice.created", "invoice.finalized", "invoice.paid", "invoice.payment_succeeded"]);
    const all = (await get("/events?limit=100")).items.filter((e: Json) => e.correlation_id === "checkout-sub-1");
    expect(all.every((e: Json) => e.actor_type === "customer")).toBe(true);
    expect(all.map((e: Json) => e.type).sort()).toEqual(
      [
        "checkout.session.completed",
        "customer.created",
        "customer.subscription.created",
        // The subscription fixes the new customer's currency (docs/billing.md, "Currency options").
        "customer.updated",
        "invoice.created",
        "invoice.finalized",
        "invoice.paid",
        "invoice.payment_succeeded",
        "payment.succeeded",
        "payment_intent.created",
        "payment_intent.processing",
        "payment_intent.succeeded",
      ].sort(),
    );
  });

  it("with a trial: trialing, nothing paid (no_payment_required); a declined card is refused and creates nothing", async () => {
    const email = uniqueEmail("trial");
    const session = await subscriptionSession({ subscription_data: { trial_period_days: 14 } });
    const declined = await complete(session.id, { email, payment_method: "pm_sandbox_declined" });
    expect(declined.body).toMatchObject({ status: "open", last_payment_error: DECLINE });
    expect(await customersWith(email)).toEqual([]);

    const response = await complete(session.id, { email, payment_method: "pm_sandbox_succeeds" });
    expect(response.body).toMatchObject({ status: "complete", payment_status: "no_payment_required" });
    const after = await getSession(session.id);
    expect(after).toMatchObject({ payment_status: "no_payment_required", invoice: null, payment_intent: null });
    const subscription = await get(`/subscriptions/${after.subscription}`);
    expect(subscription).toMatchObject({ status: "trialing", latest_invoice: null, default_payment_method: "pm_sandbox_succeeds" });
    expect(Date.parse(subscription.trial_end) - Date.parse(subscription.created)).toBe(14 * 24 * HOUR);
  });

  it("two simultaneous payments of one session: one completes, the other is refused (409); one subscription", async () => {
    const email = uniqueEmail("twice");
    const session = await subscriptionSession();
    const answers = await Promise.all([
      complete(session.id, { email, payment_method: "pm_sandbox_succeeds" }),
      complete(session.id, { email, payment_method: "pm_sandbox_succeeds" }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.status === 200)!.body.status).toBe("complete");
    const [customer] = await customersWith(email);
    expect((await get(`/subscriptions?customer=${customer.id}`)).items).toHaveLength(1);
    expect(await typesOf(session.id)).toEqual(["checkout.session.created", "checkout.session.completed"]);
  });

  it("a declined first payment leaves nothing owed or running (intent canceled, invoice void, subscription cancelled); the next attempt subscribes", async () => {
    const email = uniqueEmail("sub-declined");
    const session = await subscriptionSession();
    const declined = await complete(session.id, { email, payment_method: "pm_sandbox_declined" });
    expect(declined.body).toMatchObject({ status: "open", payment_status: "unpaid", last_payment_error: DECLINE });
    expect(await getSession(session.id)).toEqual(session);
    const [customer] = await customersWith(email);
    const [failed] = (await get(`/subscriptions?customer=${customer.id}`)).items;
    expect(failed).toMatchObject({ status: "cancelled", cancelled_at: expect.stringMatching(ISO) });
    const failedInvoice = await get(`/invoices/${failed.latest_invoice}`);
    expect(failedInvoice).toMatchObject({ status: "void", paid_amount_atom: 0 });
    expect(await typesOf(failedInvoice.id)).toEqual(["invoice.created", "invoice.finalized", "invoice.payment_failed", "invoice.voided"]);
    expect(await get(`/payment-intents/${failedInvoice.payment_intent}`)).toMatchObject({ status: "canceled" });
    expect(await typesOf(failed.id)).toEqual(["customer.subscription.created", "customer.subscription.cancelled"]);

    const needsAction = await complete(session.id, { email, payment_method: "pm_sandbox_requires_action" });
    expect(needsAction.body).toMatchObject({ status: "open", last_payment_error: expect.stringMatching(AUTHENTICATION) });

    const paid = await complete(session.id, { email, payment_method: "pm_sandbox_succeeds" });
    expect(paid.body).toMatchObject({ status: "complete", payment_status: "paid" });
    const after = await getSession(session.id);
    const subscriptions = (await get(`/subscriptions?customer=${customer.id}`)).items;
    expect(subscriptions.map((s: Json) => s.status)).toEqual(["active", "cancelled", "cancelled"]);
    expect(after).toMatchObject({ customer: customer.id, subscription: subscriptions[0].id });
    expect(await get(`/invoices/${after.invoice}`)).toMatchObject({ status: "paid" });
    const invoices = (await get(`/invoices?customer=${customer.id}`)).items;
    expect(invoices.map((i: Json) => i.status).sort()).toEqual(["paid", "void", "void"]);
    expect(await customersWith(email)).toHaveLength(1);
  });
});

describe("expiry on the account's clock", () => {
  it("expires an open session at expires_at when the test clock passes it (checkout.session.expired, actor system)", async () => {
    const fresh = await newMerchant();
    const client = api(fresh.sandboxSecret.token);
    const accountId = fresh.sandboxAccountId;
    const cat = await makeCatalogue(client, accountId);
    const clock = (await client.get(`/${accountId}/test-clock`)).body;
    const expiresAt = new Date(Date.parse(clock.now) + 30 * 60_000 + 5_000).toISOString();
    const session = await created(client, sessions(accountId), {
      mode: "payment",
      line_items: [{ price: cat.tshirt }],
      success_url: SUCCESS,
      cancel_url: "https://shop.example.com/cart",
      expires_at: expiresAt,
    });
    const later = await created(client, sessions(accountId), { mode: "payment", line_items: [{ price: cat.tshirt }], success_url: SUCCESS });
    expect((await client.get(`/${accountId}/test-clock`)).body.next_due).toBe(expiresAt);

    const advanced = await client.post(`/${accountId}/test-clock/advance`, { to: new Date(Date.parse(expiresAt) + 60_000).toISOString() });
    expect(advanced.status, advanced.text).toBe(200);
    expect(advanced.body.transitions_run).toBe(1);
    expect(advanced.body.next_due).toBe(later.expires_at);

    const expired = (await client.get(`${sessions(accountId)}/${session.id}`)).body;
    expect(expired).toEqual({ ...session, status: "expired", expired_at: expiresAt, updated: expect.stringMatching(ISO) });
    const events = await eventsOf(session.id, client, accountId);
    expect(events.map((e) => e.type)).toEqual(["checkout.session.created", "checkout.session.expired"]);
    expect(events[1]).toMatchObject({ data: expired, previous_data: session, actor_type: "system", actor_id: null });
    expect((await client.get(`${sessions(accountId)}/${later.id}`)).body.status).toBe("open");

    expectProblem(await complete(session.id, { email: "late@example.com", payment_method: "pm_sandbox_succeeds" }), 409, /expired/);
    const page = await fetch(session.url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("This checkout has expired");
    expect(html).toContain('href="https://shop.example.com/cart"');

    // Past its expiry a session cannot be paid even before the clock comes round to expire it
    // (a sweep running late): its expiry moved into the past behind the clock's back. The server's
    // own ticker (every second in tests) may come round at any moment: what holds is checked
    // whether it has or not, and the lagging state only while it is observed.
    const db = await getDb();
    await db.update(checkoutSessions).set({ expiresAt: new Date(Date.parse(advanced.body.now) - 1000) }).where(eq(checkoutSessions.id, later.id));
    const lagging = (await db.select().from(checkoutSessions).where(eq(checkoutSessions.id, later.id)))[0]!;
    expectProblem(await complete(later.id, { email: "late@example.com", payment_method: "pm_sandbox_succeeds" }), 409, /expired/);
    expect(await (await fetch(later.url)).text()).toContain("This checkout has expired");
    expect((await client.get(`/${accountId}/customers`)).body.total).toBe(0);
    // The sweeps find the account on its own clock (real time plus the test clock's offset), and
    // not two hours earlier on it.
    const due = await checkoutSessionExpiry.dueAccounts(db, new Date());
    const stillOpen = (await client.get(`${sessions(accountId)}/${later.id}`)).body.status === "open";
    if (stillOpen) expect(due).toContain(accountId);
    expect(await checkoutSessionExpiry.dueAccounts(db, new Date(Date.now() - 2 * HOUR))).not.toContain(accountId);
    // The next run of the clock expires it, at its expiry time, once: that run is this advance or
    // the server's own ticker, whichever comes first.
    const ran = await client.post(`/${accountId}/test-clock/advance`, { to: new Date(Date.parse(advanced.body.now) + 1000).toISOString() });
    expect(ran.status, ran.text).toBe(200);
    expect((await client.get(`${sessions(accountId)}/${later.id}`)).body).toMatchObject({ status: "expired", expired_at: lagging.expiresAt.toISOString() });
    expect((await eventsOf(later.id, client, accountId)).map((e) => e.type)).toEqual(["checkout.session.created", "checkout.session.expired"]);
  });
});

describe("the hosted checkout page", () => {
  it("shows the merchant, the items and the total, marked as a sandbox page; live pages say they cannot take payments", async () => {
    const session = await createSession();
    const page = await fetch(session.url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/Merchant \d+ \(sandbox\)/);
    expect(html).toContain("Sandbox checkout");
    expect(html).toContain("T-shirt (Sticker)");
    expect(html).toContain("$32.50");
    expect(html).toContain("pm_sandbox_declined");

    const liveCatalogue = await makeCatalogue(merchant.client, merchant.accountId);
    const live = await createSession({ line_items: [{ price: liveCatalogue.tshirt }] }, merchant.client, merchant.accountId);
    const livePage = await (await fetch(live.url)).text();
    expect(livePage).toContain("no payment processor connected");
    expect(livePage).not.toContain("pm_sandbox_declined");

    expect(await statusOf(`${appOrigin()}/checkout/cs_prod_00000000000000000000000000000`)).toBe(404);
  });
});
