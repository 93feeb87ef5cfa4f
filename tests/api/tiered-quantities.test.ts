import { describe, expect, it } from "vitest";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { newPortalSession, openLink, portalOrigin } from "../helpers/portal";

/*
 * Issue 42, defect 2: a tiered licensed price × quantity costs its tiers' amount on every path,
 * not unit_amount_atom (0 for a tiered price) × quantity. One function prices a price
 * (lib/prices/amount.ts `amountOf`; docs/billing.md, "Tiered quantities").
 *
 * Expected amounts are computed here by hand from the tiers, never by the service's function.
 */

// Graduated: units 1–10 at 1.00 plus a 0.50 flat fee, every unit after at 0.80 plus a 0.25 flat fee.
const GRADUATED = [
  { up_to: 10, unit_amount_atom: 100, flat_amount_atom: 50 },
  { up_to: null, unit_amount_atom: 80, flat_amount_atom: 25 },
];
/** 10 units: 10 × 100 + 50. */
const GRADUATED_10 = 10 * 100 + 50;
/** 20 units: the first tier whole, then 10 × 80 + 25. */
const GRADUATED_20 = GRADUATED_10 + 10 * 80 + 25;

async function sandboxMerchant() {
  const merchant = await newMerchant();
  const client = api(merchant.sandboxSecret.token);
  const account = merchant.sandboxAccountId;
  const product = await ok(client.post(`/${account}/products`, { name: "Seats" }));
  const customer = await ok(client.post(`/${account}/customers`, { email: "tiers@example.com" }));
  return { client, account, product: product.id as string, customer: customer.id as string };
}

async function ok(response: Promise<{ status: number; body: Json; text: string }>): Promise<Json> {
  const settled = await response;
  expect([200, 201], settled.text).toContain(settled.status);
  return settled.body;
}

async function monthlyGraduated(client: Client, account: string, product: string): Promise<string> {
  const price = await ok(
    client.post(`/${account}/prices`, {
      product,
      currency: "usd",
      type: "recurring",
      recurring: { interval: "month" },
      billing_scheme: "tiered",
      tiers_mode: "graduated",
      tiers: GRADUATED,
    }),
  );
  expect(price.unit_amount_atom).toBe(0);
  return price.id as string;
}

describe("tiered prices with a quantity (issue 42)", () => {
  it("a change request raising a graduated price's quantity 10 → 20 previews the prorated tier difference and the tiered next invoice", async () => {
    const { client, account, product, customer } = await sandboxMerchant();
    const price = await monthlyGraduated(client, account, product);
    const subscription = await ok(client.post(`/${account}/subscriptions`, { customer, items: [{ price, quantity: 10 }], default_payment_method: "pm_sandbox_succeeds" }));
    expect((await ok(client.get(`/${account}/invoices/${subscription.latest_invoice}`))).total_amount_atom).toBe(GRADUATED_10);

    const request = await ok(
      client.post(`/${account}/subscriptions/${subscription.id}/change-requests`, { steps: [{ type: "set_quantity", item: subscription.items[0].id, quantity: 20 }] }),
    );
    // floor(Δ × remaining / length), Δ the difference of the tiered amounts per period.
    const start = Date.parse(subscription.current_period_start);
    const end = Date.parse(subscription.current_period_end);
    const remaining = BigInt(end - Date.parse(request.proration_date));
    const share = Number((BigInt(GRADUATED_20 - GRADUATED_10) * remaining) / BigInt(end - start));
    expect(share).toBeGreaterThan(0);
    expect(request).toMatchObject({ amount_due_now_atom: share, proration_amount_atom: share, next_invoice_amount_atom: GRADUATED_20 });

    // The invoice preview of the same change at the same instant: the proration invoice bills that
    // share, the renewal the tiers for 20.
    const steps = [{ type: "set_quantity", item: subscription.items[0].id, quantity: 20 }];
    const previewed = await ok(client.post(`/${account}/invoices/preview`, { customer, subscription: subscription.id, changes: { steps }, proration_date: request.proration_date }));
    expect(previewed.subtotal_atom).toBe(GRADUATED_20);
    expect(previewed.proration_invoice).toMatchObject({ subtotal_atom: share });

    // Applied, the proration invoice bills that share and the next renewal the tiers for 20.
    const applied = await ok(client.post(`/${account}/subscriptions/${subscription.id}/change-requests/${request.id}/apply`, {}));
    expect(applied.status).toBe("applied");
    expect((await ok(client.get(`/${account}/invoices/${applied.invoice}`))).subtotal_atom).toBe(share);
    const upcoming = await ok(client.post(`/${account}/invoices/preview`, { customer, subscription: subscription.id }));
    expect(upcoming.subtotal_atom).toBe(GRADUATED_20);
  });

  it("a checkout session with a one-time volume-tiered price × 10 is accepted with the tiers' total", async () => {
    const { client, account, product } = await sandboxMerchant();
    // Volume: 1–5 units at 5.00 each, 6 and more at 4.00 each plus a 1.00 flat fee; 10 units all at the second tier.
    const price = await ok(
      client.post(`/${account}/prices`, {
        product,
        currency: "usd",
        type: "one_time",
        billing_scheme: "tiered",
        tiers_mode: "volume",
        tiers: [
          { up_to: 5, unit_amount_atom: 500 },
          { up_to: null, unit_amount_atom: 400, flat_amount_atom: 100 },
        ],
      }),
    );
    const session = await ok(
      client.post(`/${account}/checkout/sessions`, { mode: "payment", line_items: [{ price: price.id, quantity: 10 }], success_url: "https://shop.example.com/thanks" }),
    );
    expect(session.amount_total_atom).toBe(10 * 400 + 100);
    expect(session.line_items).toMatchObject([{ price: price.id, quantity: 10, amount_atom: 10 * 400 + 100 }]);
  });

  it("a renewal after the price is archived bills the tiers' amount for the quantity", async () => {
    const { client, account, product, customer } = await sandboxMerchant();
    const price = await monthlyGraduated(client, account, product);
    const subscription = await ok(client.post(`/${account}/subscriptions`, { customer, items: [{ price, quantity: 20 }] }));
    expect((await ok(client.get(`/${account}/invoices/${subscription.latest_invoice}`))).total_amount_atom).toBe(GRADUATED_20);
    await ok(client.post(`/${account}/prices/${price}`, { active: false }));

    await ok(client.post(`/${account}/test-clock/advance`, { to: new Date(Date.parse(subscription.current_period_end) + 60_000).toISOString() }));
    const renewed = await ok(client.get(`/${account}/subscriptions/${subscription.id}`));
    expect(renewed.current_period_start).toBe(subscription.current_period_end);
    const invoice = await ok(client.get(`/${account}/invoices/${renewed.latest_invoice}`));
    expect(invoice.id).not.toBe(subscription.latest_invoice);
    expect(invoice.total_amount_atom).toBe(GRADUATED_20);
    expect(invoice.lines).toMatchObject([{ quantity: 20, amount_atom: GRADUATED_20 }]);
    expect(invoice.lines[0].description).toContain("no longer offered");
  });

  it("the portal's plan list and subscription show a tiered price as tiered, with the real amount for the quantity", async () => {
    const { client, account, product, customer } = await sandboxMerchant();
    const price = await monthlyGraduated(client, account, product);
    const configured = await client.post(`/${account}/portal-configuration`, { features: { subscription_update: { enabled: true, prices: [price] } } });
    expect(configured.status, configured.text).toBe(200);
    const subscription = await ok(client.post(`/${account}/subscriptions`, { customer, items: [{ price, quantity: 10 }] }));
    const cookie = (await openLink((await newPortalSession(client, account, { customer })).url)).cookie!;
    const page = async (path: string) => (await fetch(`${portalOrigin()}${path}`, { headers: { Cookie: cookie } })).text();
    const text = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/&#x27;/g, "'").replace(/\s+/g, " ");

    const home = await page("/portal");
    expect(home).toContain(`data-atoms="${GRADUATED_10}"`);
    expect(text(home)).toContain("Tiered: from $1.00 per unit (+ $0.50) per month");
    expect(text(home)).toContain("10 units: $10.50 per month");
    expect(text(home)).toContain("Next invoice: $10.50");
    expect(text(home)).not.toContain("$0.00");

    const plans = text(await page(`/portal/subscriptions/${subscription.id}/change`));
    expect(plans).toContain("Tiered: from $1.00 per unit (+ $0.50) per month");
    expect(plans).not.toContain("$0.00");
  });
});
