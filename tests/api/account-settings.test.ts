import { beforeAll, describe, expect, it } from "vitest";
import { api, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

let merchant: Merchant;
beforeAll(async () => {
  merchant = await newMerchant("Café Zürich & Co");
});

const ADDRESS = { line1: "12 rue de Rivoli", postal_code: "75001", city: "Paris", country: "fr" };

async function eventsOf(m: Merchant, type: string): Promise<Json[]> {
  return (await m.client.get(`/${m.accountId}/events?event_type=${type}`)).body.items;
}

describe("account settings", () => {
  it("starts empty with a prefix derived from the account's name, and the default locale en", async () => {
    const response = await merchant.client.get("/account-settings");
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      object: "account_settings",
      id: merchant.accountId,
      business_name: null,
      address: null,
      tax_id: null,
      support_email: null,
      brand_color: null,
      invoice_prefix: expect.stringMatching(/^[A-Z0-9-]{3,12}$/),
      invoice_footer: null,
      default_locale: "en",
      default_tax_rate: null,
      usage_grace_seconds: 3600,
      entitlement_past_due_grace_days: 7,
      plan_change_policy: "immediate",
      email_sender_name: null,
      email_reply_to: null,
      email_hourly_limit: 1000,
      email_types_disabled: [],
      livemode: true,
    });
  });

  it("sets the seller's details, derives the prefix from the business name, emits account.settings_updated once", async () => {
    const m = await newMerchant();
    const before = (await m.client.get("/account-settings")).body;
    const response = await m.client.post("/account-settings", {
      business_name: "Société Générale d'Été",
      address: ADDRESS,
      tax_id: "FR40303265045",
      support_email: "billing@example.fr",
      invoice_footer: "Merci !",
      default_locale: "fr",
    });
    expect(response.status, response.text).toBe(200);
    const settings = response.body;
    expect(settings).toMatchObject({
      business_name: "Société Générale d'Été",
      address: { ...ADDRESS, line2: null, country: "FR" },
      invoice_prefix: "SOCIET",
      default_locale: "fr",
    });
    expect((await m.client.get(`/${m.accountId}/account-settings`)).body).toEqual(settings);

    const [event] = await eventsOf(m, "account.settings_updated");
    expect(event).toMatchObject({
      aggregate_type: "account_settings",
      aggregate_id: m.accountId,
      data: settings,
      previous_data: before,
      actor_type: "api_key",
      correlation_id: response.headers.get("x-request-id"),
    });

    // The same values again change nothing and emit nothing; an explicit prefix wins; null clears.
    expect((await m.client.post("/account-settings", { business_name: "Société Générale d'Été", address: ADDRESS })).body).toEqual(settings);
    expect(await eventsOf(m, "account.settings_updated")).toHaveLength(1);
    const changed = await m.client.post("/account-settings", { invoice_prefix: "SG-2026", invoice_footer: null });
    expect(changed.body).toMatchObject({ invoice_prefix: "SG-2026", invoice_footer: null });
    expect(await eventsOf(m, "account.settings_updated")).toHaveLength(2);
  });

  it.each([
    [{ invoice_prefix: "ab" }, "invoice_prefix"],
    [{ invoice_prefix: "lowercase" }, "invoice_prefix"],
    [{ invoice_prefix: "THIRTEENCHARS" }, "invoice_prefix"],
    [{ default_locale: "es" }, "default_locale"],
    [{ support_email: "not-an-email" }, "support_email"],
    [{ brand_color: "#12345" }, "brand_color"],
    [{ brand_color: "red" }, "brand_color"],
    [{ brand_color: "#12345g" }, "brand_color"],
    [{ address: { ...ADDRESS, country: "FRA" } }, "address.country"],
    [{ address: { ...ADDRESS, line1: "" } }, "address.line1"],
    [{ business_name: "" }, "business_name"],
    [{ usage_grace_seconds: -1 }, "usage_grace_seconds"],
    [{ usage_grace_seconds: 604_801 }, "usage_grace_seconds"],
    [{ entitlement_past_due_grace_days: 1.5 }, "entitlement_past_due_grace_days"],
    [{ plan_change_policy: "always_later" }, "plan_change_policy"],
  ])("refuses %j with a 422 naming %s, changing nothing", async (body, field) => {
    const m = await newMerchant();
    const before = (await m.client.get("/account-settings")).body;
    const response = await m.client.post("/account-settings", body);
    expectProblem(response, 422);
    expect(response.body.errors.map((e: Json) => e.field)).toContain(field);
    expect((await m.client.get("/account-settings")).body).toEqual(before);
    expect(await eventsOf(m, "account.settings_updated")).toHaveLength(0);
  });

  it("refuses an unknown field (400 is for missing fields; an unknown one is 422) and a publishable token", async () => {
    expectProblem(await merchant.client.post("/account-settings", { colour: "red" }), 422);
    expectProblem(await api(merchant.publishable.token).get("/account-settings"), 403);
  });

  it("keeps live and sandbox settings apart", async () => {
    const m = await newMerchant();
    await m.client.post("/account-settings", { business_name: "Live Ltd" });
    const sandbox = await api(m.sandboxSecret.token).get("/account-settings");
    expect(sandbox.body).toMatchObject({ id: m.sandboxAccountId, business_name: null, livemode: false });
  });
});

describe("customers' buyer details", () => {
  it("stores address, preferred_locale and normalized EU VAT ids, and updates them", async () => {
    const created = await merchant.client.post("/customers", {
      email: "buyer@example.de",
      address: { line1: "Unter den Linden 1", line2: "3. OG", postal_code: "10117", city: "Berlin", country: "DE" },
      preferred_locale: "de",
      tax_ids: [{ type: "eu_vat", value: "de 136.695.976" }],
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      address: { line1: "Unter den Linden 1", line2: "3. OG", postal_code: "10117", city: "Berlin", country: "DE" },
      preferred_locale: "de",
      tax_ids: [{ type: "eu_vat", value: "DE136695976", country: "DE" }],
    });
    const updated = await merchant.client.post(`/customers/${created.body.id}`, { preferred_locale: null, tax_ids: [{ type: "eu_vat", value: "FR40303265045" }] });
    expect(updated.body).toMatchObject({ preferred_locale: null, tax_ids: [{ type: "eu_vat", value: "FR40303265045", country: "FR" }] });
    const events = (await merchant.client.get(`/${merchant.accountId}/events?aggregate_id=${created.body.id}`)).body.items;
    expect(events.map((e: Json) => e.type)).toEqual(["customer.updated", "customer.created"]);
    // The same address again is no change (jsonb reorders keys; the comparison does not care).
    await merchant.client.post(`/customers/${created.body.id}`, { address: created.body.address });
    expect((await merchant.client.get(`/${merchant.accountId}/events?aggregate_id=${created.body.id}`)).body.items).toHaveLength(2);
  });

  it.each([
    [{ tax_ids: [{ type: "eu_vat", value: "DE123" }] }, "tax_ids.0.value"],
    [{ tax_ids: [{ type: "eu_vat", value: "DE136695977" }] }, "tax_ids.0.value"],
    [{ tax_ids: [{ type: "eu_vat", value: "CHE123456789" }] }, "tax_ids.0.value"],
    [{ tax_ids: [{ type: "us_ein", value: "12-3456789" }] }, "tax_ids.0.type"],
    [{ preferred_locale: "it" }, "preferred_locale"],
    [{ address: { line1: "x", postal_code: "1", city: "y", country: "Germany" } }, "address.country"],
  ])("refuses %j with a 422 naming %s", async (body, field) => {
    const response = await merchant.client.post("/customers", { email: "refused@example.com", ...body });
    expectProblem(response, 422);
    expect(response.body.errors.map((e: Json) => e.field)).toContain(field);
  });
});
