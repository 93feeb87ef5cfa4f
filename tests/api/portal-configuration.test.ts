import { describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

async function setup() {
  const merchant = await newMerchant();
  const path = `/${merchant.accountId}/portal-configuration` as const;
  const product = (await merchant.client.post(`/${merchant.accountId}/products`, { name: "Plan" })).body.id;
  const price = async (type: "recurring" | "one_time" = "recurring") =>
    (
      await merchant.client.post(`/${merchant.accountId}/prices`, {
        product,
        currency: "usd",
        unit_amount_atom: 1000,
        type,
        ...(type === "recurring" ? { recurring: { interval: "month" } } : {}),
      })
    ).body.id as string;
  return { merchant, client: merchant.client, path, price };
}

describe("portal configuration", () => {
  it("answers the defaults until saved; a change names only what it changes; portal_configuration.updated", async () => {
    const { merchant, client, path, price } = await setup();
    const initial = await client.get(path);
    expect(initial.status, initial.text).toBe(200);
    expect(initial.body).toMatchObject({
      object: "portal_configuration",
      features: {
        invoice_history: { enabled: true },
        subscription_cancel: { enabled: true, mode: "at_period_end" },
        subscription_pause: { enabled: false },
        subscription_update: { plan_change: "account_policy" },
      },
      branding: { business_name: null, accent_color: null, logo_url: null },
      default_return_url: null,
      plan_change_rule: "change_request",
      livemode: true,
      updated: null,
    });
    const monthly = await price();
    const saved = await client.post(path, {
      features: {
        subscription_pause: { enabled: true },
        subscription_update: { enabled: true, plan_change: "upgrade_now_downgrade_at_period_end", prices: [monthly], quantity: { enabled: true, maximum: 5 } },
        subscription_cancel: { mode: "immediately", cancellation_reasons: { options: ["too_expensive", "other"] } },
      },
      branding: { business_name: "Acme", accent_color: "#112233", logo_url: "https://acme.example/logo.png" },
      default_return_url: "https://acme.example/account",
    });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body).toMatchObject({
      features: {
        invoice_history: { enabled: true },
        subscription_pause: { enabled: true },
        subscription_update: { enabled: true, plan_change: "upgrade_now_downgrade_at_period_end", prices: [monthly], quantity: { enabled: true, minimum: 1, maximum: 5 } },
        subscription_cancel: { enabled: true, mode: "immediately", cancellation_reasons: { enabled: true, options: ["too_expensive", "other"] } },
      },
      branding: { business_name: "Acme", accent_color: "#112233", logo_url: "https://acme.example/logo.png" },
      default_return_url: "https://acme.example/account",
      updated: expect.any(String),
    });
    expect((await client.get(path)).body).toEqual(saved.body);
    // Nothing changed: no second event.
    expect((await client.post(path, { features: { subscription_pause: { enabled: true } } })).body).toEqual(saved.body);
    const events = (await client.get(`/${merchant.accountId}/events?event_type=portal_configuration.updated`)).body;
    expect(events.total).toBe(1);
    expect(events.items[0]).toMatchObject({ aggregate_id: merchant.accountId, data: saved.body, previous_data: initial.body });
  });

  it.each([
    [{ branding: { logo_url: "http://acme.example/logo.png" } }, /https/],
    [{ branding: { logo_url: "javascript:alert(1)" } }, /https/],
    [{ branding: { accent_color: "red" } }, /hex/],
    [{ default_return_url: "ftp://x.example" }, /http/],
    [{ features: { subscription_update: { quantity: { minimum: 10, maximum: 2 } } } }, /maximum/],
    [{ features: { subscription_update: { enabled: true } } }, /at least one price/],
    [{ features: { subscription_update: { prices: ["price_prod_nope"] } } }, /No such price/],
    [{ features: { subscription_cancel: { mode: "sometimes" } } }, undefined],
    [{ features: { subscription_update: { plan_change: "whenever" } } }, /plan_change/],
    [{ features: { subscription_cancel: { cancellation_reasons: { options: ["bored"] } } } }, undefined],
    [{ features: { unknown: { enabled: true } } }, undefined],
  ])("refuses %j with a 422 and changes nothing", async (body, detail) => {
    const { client, path } = await setup();
    const response = await client.post(path, body);
    expectProblem(response, 422, detail);
    expect((await client.get(path)).body.updated).toBeNull();
  });

  it("refuses a one-time price to switch to; a publishable token and another account cannot read it", async () => {
    const { merchant, client, path, price } = await setup();
    expectProblem(await client.post(path, { features: { subscription_update: { prices: [await price("one_time")] } } }), 422, /one_time/);
    expectProblem(await api(merchant.publishable.token).get(path), 403);
    const other = await newMerchant();
    expectProblem(await other.client.get(path), 403);
  });
});
