import { beforeAll, describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

let merchant: Merchant;
beforeAll(async () => {
  merchant = await newMerchant();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function eventsOf(m: Merchant, aggregateId: string) {
  return (await m.client.get(`/${m.accountId}/events?aggregate_id=${aggregateId}`)).body.items;
}

describe("customers", () => {
  it("creates a customer and emits customer.created with the full state", async () => {
    const response = await merchant.client.post("/customers", {
      email: "jenny@example.com",
      name: "Jenny Rosen",
      custom_fields: { vat_id: "DE123" },
      metadata: { crm: "42" },
    });
    expect(response.status).toBe(201);
    const customer = response.body;
    expect(customer).toEqual({
      id: expect.stringMatching(/^cus_prod_[0-9a-z]{29}$/),
      object: "customer",
      email: "jenny@example.com",
      name: "Jenny Rosen",
      address: null,
      preferred_locale: null,
      tax_ids: [],
      invoice_emails: [],
      default_tax_rate: null,
      default_payment_method: null,
      metadata: { crm: "42" },
      balances: {},
      // Fixed by the first invoice or subscription when not given (docs/billing.md, "Currency options").
      currency: null,
      livemode: true,
      created: expect.stringMatching(ISO),
      updated: expect.stringMatching(ISO),
    });

    const [event] = await eventsOf(merchant, customer.id);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_prod_/),
      type: "customer.created",
      aggregate_type: "customer",
      aggregate_id: customer.id,
      data: { ...customer, custom_fields: { vat_id: "DE123" } },
      previous_data: null,
      metadata: {},
      correlation_id: response.headers.get("x-request-id"),
      request_id: response.headers.get("x-request-id"),
      version: 1,
      sequence: 1,
      created: expect.stringMatching(ISO),
      actor_type: "api_key",
      actor_id: merchant.secret.id,
    });
  });

  it("serves the same operations with and without the account segment", async () => {
    const created = await merchant.client.post(`/${merchant.accountId}/customers`, { email: "scoped@example.com" });
    expect(created.status).toBe(201);
    const viaUnscoped = await merchant.client.get(`/customers/${created.body.id}`);
    const viaScoped = await merchant.client.get(`/${merchant.accountId}/customers/${created.body.id}`);
    expect(viaUnscoped.body).toEqual(created.body);
    expect(viaScoped.body).toEqual(created.body);
  });

  it("includes custom field values only with expand=custom_fields", async () => {
    const { body: customer } = await merchant.client.post("/customers", {
      email: "fields@example.com",
      custom_fields: { tier: "gold" },
    });
    const plain = await merchant.client.get(`/customers/${customer.id}`);
    expect(plain.body).not.toHaveProperty("custom_fields");
    const expanded = await merchant.client.get(`/customers/${customer.id}?expand=custom_fields`);
    expect(expanded.body.custom_fields).toEqual({ tier: "gold" });
    const listed = await merchant.client.get("/customers?expand=custom_fields&limit=100");
    expect(listed.body.items.find((c: { id: string }) => c.id === customer.id).custom_fields).toEqual({ tier: "gold" });
    expectProblem(await merchant.client.get(`/customers/${customer.id}?expand=invoices`), 400, /expand/);
  });

  it("updates a customer, emitting customer.updated with previous_data, and no event for a no-op", async () => {
    const { body: customer } = await merchant.client.post("/customers", {
      email: "old@example.com",
      name: "Old",
      custom_fields: { a: "1", b: "2" },
    });
    const updated = await merchant.client.post(
      `/customers/${customer.id}?expand=custom_fields`,
      { email: "new@example.com", custom_fields: { a: null, c: "3" } },
      { headers: { "X-Correlation-Id": "update-1" } },
    );
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ email: "new@example.com", name: "Old", custom_fields: { b: "2", c: "3" } });

    const noop = await merchant.client.post(`/customers/${customer.id}`, { email: "new@example.com" });
    expect(noop.status).toBe(200);

    const events = await eventsOf(merchant, customer.id);
    expect(events.map((e: { type: string }) => e.type)).toEqual(["customer.updated", "customer.created"]);
    expect(events[0]).toMatchObject({
      correlation_id: "update-1",
      previous_data: { email: "old@example.com", custom_fields: { a: "1", b: "2" } },
      data: { email: "new@example.com", custom_fields: { b: "2", c: "3" } },
    });
  });

  it("keeps up to 5 extra invoice recipients (invoice_emails): replaced by an update, refused with the field named, sent the invoice email", async () => {
    const created = await merchant.client.post("/customers", { email: "payer@example.com", invoice_emails: ["ap@example.com", "cfo@example.com"] });
    expect(created.status, created.text).toBe(201);
    expect(created.body.invoice_emails).toEqual(["ap@example.com", "cfo@example.com"]);
    const id = created.body.id as string;

    const replaced = await merchant.client.post(`/customers/${id}`, { invoice_emails: ["ap@example.com"] });
    expect(replaced.body.invoice_emails).toEqual(["ap@example.com"]);
    const [updated] = await eventsOf(merchant, id);
    expect(updated).toMatchObject({ type: "customer.updated", data: { invoice_emails: ["ap@example.com"] }, previous_data: { invoice_emails: ["ap@example.com", "cfo@example.com"] } });
    // The same list again is no change: no event.
    await merchant.client.post(`/customers/${id}`, { invoice_emails: ["ap@example.com"] });
    expect(await eventsOf(merchant, id)).toHaveLength(2);

    const refusals: [unknown, string, RegExp][] = [
      [["a@example.com\r\nBcc: x@example.com"], "invoice_emails.0", /line break/],
      [["ok@example.com", "not an address"], "invoice_emails.1", /valid email/],
      [Array.from({ length: 6 }, (_, i) => `p${i}@example.com`), "invoice_emails", /At most 5/],
      [["a@example.com", "A@example.com"], "invoice_emails", /once/],
      ["a@example.com", "invoice_emails", /./],
    ];
    for (const [invoice_emails, field, message] of refusals) {
      const refused = await merchant.client.post(`/customers/${id}`, { invoice_emails });
      expect(refused.status, JSON.stringify(invoice_emails)).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(500);
      expectProblem(refused, refused.status);
      expect(refused.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field, message: expect.stringMatching(message) })]));
    }
    expect((await merchant.client.get(`/customers/${id}`)).body.invoice_emails).toEqual(["ap@example.com"]);

    // The invoice email goes to the customer's address and the extra recipients.
    const invoice = (await merchant.client.post("/invoices", { customer: id, currency: "eur", lines: [{ unit_amount_atom: 500, description: "Setup" }] })).body;
    expect((await merchant.client.post(`/invoices/${invoice.id}/finalize`)).status).toBe(200);
    const queued = await merchant.client.post(`/invoices/${invoice.id}/send`);
    expect(queued.status, queued.text).toBeLessThan(300);
    expect(queued.body.to).toEqual(["payer@example.com", "ap@example.com"]);

    // [] removes them.
    expect((await merchant.client.post(`/customers/${id}`, { invoice_emails: [] })).body.invoice_emails).toEqual([]);
  });

  it("deletes a customer: customer.deleted, then 404 and gone from the list", async () => {
    const { body: customer } = await merchant.client.post("/customers", { email: "bye@example.com" });
    const deleted = await merchant.client.delete(`/customers/${customer.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: customer.id, object: "customer", deleted: true });

    expectProblem(await merchant.client.get(`/customers/${customer.id}`), 404, /No such customer/);
    expectProblem(await merchant.client.delete(`/customers/${customer.id}`), 404);
    expectProblem(await merchant.client.post(`/customers/${customer.id}`, { name: "x" }), 404);
    const list = await merchant.client.get("/customers?limit=100");
    expect(list.body.items.map((c: { id: string }) => c.id)).not.toContain(customer.id);

    const [event] = await eventsOf(merchant, customer.id);
    expect(event).toMatchObject({
      type: "customer.deleted",
      data: { id: customer.id, deleted: true },
      previous_data: { id: customer.id, email: "bye@example.com" },
    });
  });

  it("lists newest first", async () => {
    const fresh = await newMerchant();
    const ids: string[] = [];
    for (const email of ["1@example.com", "2@example.com", "3@example.com"]) {
      ids.push((await fresh.client.post("/customers", { email })).body.id);
    }
    const list = await fresh.client.get("/customers");
    expect(list.body.items.map((c: { id: string }) => c.id)).toEqual(ids.reverse());
  });

  it("hides other accounts' customers behind 404", async () => {
    const other = await newMerchant();
    const { body: theirs } = await other.client.post("/customers", { email: "theirs@example.com" });
    expectProblem(await merchant.client.get(`/customers/${theirs.id}`), 404);
    expectProblem(await merchant.client.get(`/${merchant.accountId}/customers/${theirs.id}`), 404);
    expectProblem(await merchant.client.post(`/customers/${theirs.id}`, { name: "hijack" }), 404);
    expectProblem(await merchant.client.delete(`/customers/${theirs.id}`), 404);
    expect((await other.client.get(`/customers/${theirs.id}`)).body.name).toBeNull();
  });

  it("keeps live and sandbox apart", async () => {
    const fresh = await newMerchant();
    const sandbox = api(fresh.sandboxSecret.token);
    const created = await sandbox.post("/customers", { email: "sandbox@example.com" });
    expect(created.body).toMatchObject({ id: expect.stringMatching(/^cus_prod_/), livemode: false });
    expect((await sandbox.get("/customers")).body.total).toBe(1);
    expect((await fresh.client.get("/customers")).body.total).toBe(0);
  });
});
