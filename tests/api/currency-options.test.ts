import { beforeAll, describe, expect, it } from "vitest";
import { operationPath, type OperationName } from "@/lib/operation-paths";
import { api, type ApiPath, type Client, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

/*
 * One price in many currencies (docs/billing.md, "Currency options"), over HTTP against the
 * production build, on a sandbox account (its test clock moves renewals): a USD-default price with
 * EUR and JPY options bills EUR and JPY customers from their option, a price without the
 * customer's currency is a 422 naming both, the customer's currency is fixed by their first
 * subscription and held while anything is open, and an amount-off coupon takes its EUR amount off
 * an EUR invoice.
 */

const DAY = 24 * 60 * 60 * 1000;

let client: Client;
let account: string;
let product: string;

beforeAll(async () => {
  const merchant = await newMerchant();
  client = api(merchant.sandboxSecret.token);
  account = merchant.sandboxAccountId;
  product = (await client.post(path("createProduct"), { name: "Pro" })).body.id;
});

/** The operation's path under the API root (the client's base), from the operations list. */
function path<M extends "get" | "post">(operation: OperationName, params: Record<string, string> = {}): ApiPath<M> {
  return operationPath(operation, { account_id: account, ...params }).replace(/^\/api/, "") as ApiPath<M>;
}

async function ok(response: Promise<{ status: number; body: Json; text: string }>): Promise<Json> {
  const settled = await response;
  expect([200, 201], settled.text).toContain(settled.status);
  return settled.body;
}

const customer = (extra: object = {}) => ok(client.post(path("createCustomer"), { email: `c${Math.random().toString(36).slice(2, 8)}@example.com`, ...extra }));
const getCustomer = (id: string) => ok(client.get(path("getCustomer", { customer_id: id })));
const subscribe = (customerId: string, price: string, extra: object = {}) =>
  client.post(path("createSubscription"), { customer: customerId, items: [{ price }], ...extra });
const invoice = async (id: string) => ok(client.get(path("getInvoice", { invoice_id: id })));

/** A monthly USD 20.00 price, EUR 18.50 and JPY 3,000 (yen have no minor unit: 3000 atoms are ¥3,000). */
let monthly: Json;
beforeAll(async () => {
  monthly = await ok(
    client.post(path("createPrice"), {
      product,
      currency: "usd",
      unit_amount_atom: 2000,
      type: "recurring",
      recurring: { interval: "month" },
      currency_options: { EUR: { unit_amount_atom: 1850, tax_behavior: "exclusive" }, jpy: { unit_amount_atom: 3000 } },
    }),
  );
});

describe("a price's currency options", () => {
  it("are stored as given and shown with the price's own currency, Stripe's shape", async () => {
    expect(monthly.currency).toBe("usd");
    expect(monthly.unit_amount_atom).toBe(2000);
    expect(monthly.currency_options).toEqual({
      usd: { unit_amount_atom: 2000, tiers: null, tax_behavior: "unspecified" },
      eur: { unit_amount_atom: 1850, tiers: null, tax_behavior: "exclusive" },
      jpy: { unit_amount_atom: 3000, tiers: null, tax_behavior: "unspecified" },
    });
    expect(await ok(client.get(path("getPrice", { price_id: monthly.id })))).toEqual(monthly);
  });

  it("tiered: the same tiers in every currency, amounts in its atoms", async () => {
    const tiers = [
      { up_to: 10, unit_amount_atom: 100 },
      { up_to: null, unit_amount_atom: 50, flat_amount_atom: 500 },
    ];
    const created = await ok(
      client.post(path("createPrice"), {
        product,
        currency: "usd",
        type: "one_time",
        billing_scheme: "tiered",
        tiers_mode: "graduated",
        tiers,
        currency_options: { bhd: { tiers: [{ up_to: 10, unit_amount_atom: 375 }, { up_to: null, unit_amount_atom: 190, flat_amount_atom: 1885 }] } },
      }),
    );
    expect(created.currency_options.bhd.tiers).toEqual([
      { up_to: 10, unit_amount_atom: 375, flat_amount_atom: 0 },
      { up_to: null, unit_amount_atom: 190, flat_amount_atom: 1885 },
    ]);
    // 12 units in BHD (3 decimals): 10 × 0.375 + 2 × 0.190 + 1.885 = 6.015 BHD, 6015 fils.
    const cus = await customer();
    const draft = await ok(client.post(path("createInvoice"), { customer: cus.id, currency: "bhd", lines: [{ price: created.id, quantity: 12 }] }));
    expect(draft.lines[0]).toMatchObject({ unit_amount_atom: 0, amount_atom: 6015 });
    expect(draft.subtotal_atom).toBe(6015);
  });

  it.each([
    ["an unknown currency", { zzz: { unit_amount_atom: 1 } }, "currency_options.zzz"],
    ["the price's own currency", { usd: { unit_amount_atom: 1 } }, "currency_options.usd"],
    ["no amount", { eur: {} }, "currency_options.eur.unit_amount_atom"],
    ["a decimal amount", { jpy: { unit_amount_atom: 29.5 } }, "currency_options.jpy.unit_amount_atom"],
    ["tiers on a per-unit price", { eur: { unit_amount_atom: 1, tiers: [{ up_to: null, unit_amount_atom: 1 }] } }, "currency_options.eur.tiers"],
  ])("refuses %s (the field named)", async (_name, options, field) => {
    const response = await client.post(path("createPrice"), {
      product,
      currency: "usd",
      unit_amount_atom: 2000,
      type: "one_time",
      currency_options: options,
    });
    expect([400, 422]).toContain(response.status);
    expect(JSON.stringify(response.body.errors ?? response.body)).toContain(field);
  });

  it("tiers must keep the price's bounds", async () => {
    const response = await client.post(path("createPrice"), {
      product,
      currency: "usd",
      type: "one_time",
      billing_scheme: "tiered",
      tiers_mode: "volume",
      tiers: [{ up_to: 10, unit_amount_atom: 100 }, { up_to: null, unit_amount_atom: 50 }],
      currency_options: { eur: { tiers: [{ up_to: 5, unit_amount_atom: 90 }, { up_to: null, unit_amount_atom: 45 }] } },
    });
    expectProblem(response, 422);
    expect(JSON.stringify(response.body.errors)).toContain("currency_options.eur.tiers");
  });

  it("can be added later, and then bill that currency; a currency already priced stays as it is", async () => {
    const price = await ok(client.post(path("createPrice"), { product, currency: "usd", unit_amount_atom: 2000, type: "recurring", recurring: { interval: "month" }, currency_options: { eur: { unit_amount_atom: 1850 } } }));
    const update = (body: object) => client.post(path("updatePrice", { price_id: price.id }), body);
    const events = async () => (await ok(client.get(`${path("listEvents")}?aggregate_id=${price.id}` as ApiPath<"get">))).items.map((event: Json) => event.type);
    const gbpCustomer = await customer({ currency: "gbp" });
    expectProblem(await subscribe(gbpCustomer.id, price.id), 422);

    // Refused, nothing changed: a currency it bills in already (its amounts are fixed), its own, a per-unit option without its amount.
    const again = await update({ currency_options: { eur: { unit_amount_atom: 1700 }, gbp: { unit_amount_atom: 1600 } } });
    expectProblem(again, 422, /already bills in 'eur'/);
    expect(again.body.errors).toEqual([{ field: "currency_options.eur", message: expect.stringMatching(/create a new price/) }]);
    expect((await update({ currency_options: { usd: { unit_amount_atom: 1900 } } })).body.errors).toEqual([{ field: "currency_options.usd", message: expect.stringMatching(/own currency/) }]);
    expect((await update({ currency_options: { gbp: { tax_behavior: "exclusive" } } })).body.errors).toEqual([{ field: "currency_options.gbp.unit_amount_atom", message: "Required: the price is per_unit." }]);
    expect(await ok(client.get(path("getPrice", { price_id: price.id })))).toEqual(price);
    expect(await events()).toEqual(["price.created"]);

    // Added: shown beside the others, one price.updated, and a GBP customer is billed its amount.
    const added = await ok(update({ currency_options: { GBP: { unit_amount_atom: 1600 } } }));
    expect(added.currency_options).toEqual({
      usd: { unit_amount_atom: 2000, tiers: null, tax_behavior: "unspecified" },
      eur: { unit_amount_atom: 1850, tiers: null, tax_behavior: "unspecified" },
      gbp: { unit_amount_atom: 1600, tiers: null, tax_behavior: "unspecified" },
    });
    expect(await events()).toEqual(["price.updated", "price.created"]);
    const subscription = await ok(subscribe(gbpCustomer.id, price.id));
    expect(await invoice(subscription.latest_invoice)).toMatchObject({ currency: "gbp", subtotal_atom: 1600 });
    // Adding nothing new changes nothing.
    expect(await ok(update({ currency_options: {} }))).toEqual(added);
    expect(await events()).toEqual(["price.updated", "price.created"]);
  });

  it("a tiered price's added currency keeps its bounds", async () => {
    const tiers = [{ up_to: 10, unit_amount_atom: 100 }, { up_to: null, unit_amount_atom: 50 }];
    const price = await ok(client.post(path("createPrice"), { product, currency: "usd", type: "one_time", billing_scheme: "tiered", tiers_mode: "volume", tiers }));
    const update = (body: object) => client.post(path("updatePrice", { price_id: price.id }), body);
    const bounds = await update({ currency_options: { eur: { tiers: [{ up_to: 5, unit_amount_atom: 90 }, { up_to: null, unit_amount_atom: 45 }] } } });
    expectProblem(bounds, 422);
    expect(bounds.body.errors.map((error: Json) => error.field)).toEqual(["currency_options.eur.tiers"]);
    const added = await ok(update({ currency_options: { eur: { tiers: [{ up_to: 10, unit_amount_atom: 90 }, { up_to: null, unit_amount_atom: 45 }] } } }));
    expect(added.currency_options.eur.tiers).toEqual([{ up_to: 10, unit_amount_atom: 90, flat_amount_atom: 0 }, { up_to: null, unit_amount_atom: 45, flat_amount_atom: 0 }]);
  });
});

describe("customers billed in their currency", () => {
  it("an EUR customer subscribes to the USD-default price: the EUR option bills the first invoice and the renewal", async () => {
    const cus = await customer({ currency: "eur" });
    expect(cus.currency).toBe("eur");
    const subscription = await ok(subscribe(cus.id, monthly.id));
    expect(subscription.currency).toBe("eur");
    const first = await invoice(subscription.latest_invoice);
    expect(first).toMatchObject({ currency: "eur", subtotal_atom: 1850 });
    expect(first.lines[0]).toMatchObject({ price: monthly.id, unit_amount_atom: 1850, amount_atom: 1850 });

    // The upcoming invoice (the renewal as it would be finalized) is in EUR too.
    const upcoming = await ok(client.post(path("previewInvoice"), { customer: cus.id }));
    expect(upcoming).toMatchObject({ currency: "eur", subtotal_atom: 1850 });

    // The renewal, a month on the sandbox's clock.
    const now = Date.parse((await ok(client.get(path("getTestClock")))).now);
    await ok(client.post(path("advanceTestClock"), { to: new Date(now + 32 * DAY).toISOString() }));
    const renewed = await ok(client.get(path("getSubscription", { subscription_id: subscription.id })));
    expect(renewed.latest_invoice).not.toBe(subscription.latest_invoice);
    expect(await invoice(renewed.latest_invoice)).toMatchObject({ currency: "eur", subtotal_atom: 1850 });
  });

  it("a JPY customer: no minor unit, ¥3,000 is 3000 atoms", async () => {
    const cus = await customer({ currency: "JPY" });
    expect(cus.currency).toBe("jpy");
    const subscription = await ok(subscribe(cus.id, monthly.id));
    expect(await invoice(subscription.latest_invoice)).toMatchObject({ currency: "jpy", subtotal_atom: 3000, total_amount_atom: 3000 });
  });

  it("a price without the customer's currency is a 422 naming the currency and the price", async () => {
    const cus = await customer({ currency: "gbp" });
    const response = await subscribe(cus.id, monthly.id);
    expectProblem(response, 422);
    const error = (response.body.errors as Json[]).find((e) => e.field === "items.0.price");
    expect(error?.message).toContain(monthly.id);
    expect(error?.message).toContain("gbp");
    // A one-off invoice in a currency the price lacks: the same 422 on the line's price.
    const draft = await client.post(path("createInvoice"), { customer: cus.id, currency: "chf", lines: [{ price: monthly.id }] });
    expectProblem(draft, 422);
    expect(JSON.stringify(draft.body.errors)).toContain("chf");
  });

  it("checkout for an EUR customer bills the EUR option", async () => {
    const cus = await customer({ currency: "eur" });
    const session = await ok(
      client.post(path("createCheckoutSession"), {
        mode: "subscription",
        customer: cus.id,
        line_items: [{ price: monthly.id, quantity: 2 }],
        success_url: "https://example.com/ok",
      }),
    );
    expect(session).toMatchObject({ currency: "eur", amount_total_atom: 3700 });
  });
});

describe("the customer's currency", () => {
  it("is fixed by their first subscription, then held while it is open", async () => {
    const cus = await customer();
    expect(cus.currency).toBeNull();
    const subscription = await ok(subscribe(cus.id, monthly.id));
    expect(subscription.currency).toBe("usd");
    expect((await getCustomer(cus.id)).currency).toBe("usd");

    const held = await client.post(path("updateCustomer", { customer_id: cus.id }), { currency: "eur" });
    expectProblem(held, 409);
    expect(held.body.detail).toContain("subscription");
    expect((await getCustomer(cus.id)).currency).toBe("usd");

    // Cancelled, its invoice paid or not: what still holds the currency is named.
    await ok(client.post(path("cancelSubscription", { subscription_id: subscription.id }), {}));
    const first = await invoice(subscription.latest_invoice);
    if (first.status === "open") await ok(client.post(path("voidInvoice", { invoice_id: first.id }), {}));
    const changed = await ok(client.post(path("updateCustomer", { customer_id: cus.id }), { currency: "eur" }));
    expect(changed.currency).toBe("eur");
  });

  it("is fixed by their first invoice, and held by a non-zero balance", async () => {
    const cus = await customer();
    await ok(client.post(path("createInvoice"), { customer: cus.id, currency: "jpy", lines: [{ unit_amount_atom: 500, description: "Setup" }] }));
    expect((await getCustomer(cus.id)).currency).toBe("jpy");
    const other = await customer({ currency: "eur" });
    await ok(client.post(path("createCustomerBalanceTransaction", { customer_id: other.id }), { amount_atom: -300, currency: "eur", description: "Owed from before" }));
    const held = await client.post(path("updateCustomer", { customer_id: other.id }), { currency: "usd" });
    expectProblem(held, 409);
    expect(held.body.detail).toContain("balance");
  });

  it("is fixed once when first invoices come at once: each waits for the one before, none fails, one customer.updated", async () => {
    const cus = await customer();
    const created = await Promise.all(
      ["jpy", "eur", "jpy", "usd", "eur", "jpy"].map((currency) =>
        client.post(path("createInvoice"), { customer: cus.id, currency, lines: [{ unit_amount_atom: 500, description: "Setup" }] }),
      ),
    );
    for (const response of created) expect(response.status, response.text).toBe(201);
    const fixed = (await getCustomer(cus.id)).currency;
    expect(["jpy", "eur", "usd"]).toContain(fixed);
    const events = (await client.get(`/${account}/events?aggregate_id=${cus.id}&limit=100` as ApiPath<"get">)).body.items as Json[];
    const updates = events.filter((event) => event.type === "customer.updated");
    expect(updates.map((event) => [event.previous_data.currency, event.data.currency])).toEqual([[null, fixed]]);
  });
});

describe("an amount-off coupon's currency options", () => {
  it("takes its EUR amount off an EUR invoice, nothing off a currency it lacks", async () => {
    const coupon = await ok(
      client.post(path("createCoupon"), { amount_off_atom: 500, currency: "usd", currency_options: { eur: { amount_off_atom: 450 } }, duration: "forever" }),
    );
    expect(coupon.currency_options).toEqual({ eur: { amount_off_atom: 450 } });
    const eur = await customer({ currency: "eur" });
    await ok(client.post(path("applyCustomerDiscount", { customer_id: eur.id }), { coupon: coupon.id }));
    const draft = await ok(client.post(path("createInvoice"), { customer: eur.id, currency: "eur", lines: [{ price: monthly.id }] }));
    const finalized = await ok(client.post(path("finalizeInvoice", { invoice_id: draft.id }), {}));
    expect(finalized).toMatchObject({ currency: "eur", subtotal_atom: 1850, discount_atom: 450, total_amount_atom: 1400 });

    const gbp = await customer({ currency: "gbp" });
    await ok(client.post(path("applyCustomerDiscount", { customer_id: gbp.id }), { coupon: coupon.id }));
    const plain = await ok(client.post(path("createInvoice"), { customer: gbp.id, currency: "gbp", lines: [{ unit_amount_atom: 1000, description: "Work" }] }));
    expect(await ok(client.post(path("finalizeInvoice", { invoice_id: plain.id }), {}))).toMatchObject({ discount_atom: 0, total_amount_atom: 1000 });
  });

  it("only with amount_off_atom", async () => {
    expectProblem(await client.post(path("createCoupon"), { percent_off: 10, currency_options: { eur: { amount_off_atom: 450 } }, duration: "once" }), 422);
  });
});
