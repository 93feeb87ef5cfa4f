import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { webhookEndpoints } from "@/db/schema";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { refusedUrl } from "../helpers/receiver";

let merchant: Merchant;
const path = () => `/${merchant.accountId}/webhook-endpoints` as const;

beforeAll(async () => {
  merchant = await newMerchant();
});

describe("webhook endpoint management", () => {
  it("creates an endpoint, showing the signing secret once, stored encrypted", async () => {
    const created = await merchant.client.post(path(), {
      url: "https://example.com/hooks",
      events: ["invoice.paid", "customer.created", "invoice.paid"],
      description: "Billing sync",
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^whe_prod_[0-9a-z]{29}$/),
      object: "webhook_endpoint",
      url: "https://example.com/hooks",
      events: ["customer.created", "invoice.paid"],
      description: "Billing sync",
      enabled: true,
      max_deliveries_per_second: null,
      livemode: true,
      previous_secret_expires_at: null,
      failing_since: null,
      disabled_at: null,
      disabled_reason: null,
      created: expect.any(String),
      updated: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const retrieved = await merchant.client.get(`${path()}/${created.body.id}`);
    expect(retrieved.body).not.toHaveProperty("secret");
    const { secret, ...rest } = created.body;
    expect(retrieved.body).toEqual(rest);

    const db = await getDb();
    const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.body.id));
    expect(row!.secretCiphertext).toMatch(/^v1\./);
    expect(row!.secretCiphertext).not.toContain(secret.slice("whsec_".length));
  });

  const invalid: { name: string; body: Record<string, unknown>; status: number; field: string; detail: RegExp }[] = [
    { name: "an HTTP URL", body: { url: "http://example.com/h", events: ["*"] }, status: 422, field: "url", detail: /HTTPS/ },
    { name: "a relative URL", body: { url: "/hooks", events: ["*"] }, status: 422, field: "url", detail: /HTTPS URL/ },
    { name: "credentials in the URL", body: { url: "https://u:p@example.com/", events: ["*"] }, status: 422, field: "url", detail: /credentials/ },
    { name: "a missing URL", body: { events: ["*"] }, status: 400, field: "url", detail: /url/ },
    { name: "missing events", body: { url: "https://example.com/h" }, status: 400, field: "events", detail: /events/ },
    { name: "no events", body: { url: "https://example.com/h", events: [] }, status: 422, field: "events", detail: /at least one/ },
    {
      name: "unknown event types",
      body: { url: "https://example.com/h", events: ["customer.created", "customer.exploded", "nope"] },
      status: 422,
      field: "events",
      detail: /customer\.exploded, nope/,
    },
  ];
  for (const testCase of invalid) {
    it(`refuses ${testCase.name} with ${testCase.status}, creating nothing`, async () => {
      const fresh = await newMerchant();
      const response = await fresh.client.post(`/${fresh.accountId}/webhook-endpoints`, testCase.body);
      expectProblem(response, testCase.status, testCase.detail);
      expect(response.body.errors.map((e: { field: string }) => e.field)).toContain(testCase.field);
      expect((await fresh.client.get(`/${fresh.accountId}/webhook-endpoints`)).body.total).toBe(0);
    });
  }

  it("accepts the wildcard, which subscribes to every type", async () => {
    const created = await merchant.client.post(path(), { url: await refusedUrl(), events: ["*", "invoice.paid"] });
    expect(created.body.events).toEqual(["*"]);
  });

  it("lists, updates, rotates and deletes", async () => {
    const fresh = await newMerchant();
    const base = `/${fresh.accountId}/webhook-endpoints` as const;
    const a = (await fresh.client.post(base, { url: await refusedUrl(), events: ["*"] })).body;
    const b = (await fresh.client.post(base, { url: await refusedUrl(), events: ["customer.created"] })).body;

    const list = await fresh.client.get(`${base}?limit=1`);
    expect(list.body).toMatchObject({ total: 2, has_more: true });
    expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([b.id]);

    const moved = await refusedUrl();
    const updated = await fresh.client.post(`${base}/${a.id}`, {
      url: moved,
      events: ["invoice.paid"],
      description: null,
      enabled: false,
    });
    expect(updated.body).toMatchObject({ url: moved, events: ["invoice.paid"], enabled: false });
    expectProblem(await fresh.client.post(`${base}/${a.id}`, { url: "http://insecure.example.com" }), 422, /HTTPS/);

    const rotated = await fresh.client.post(`${base}/${a.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(a.secret);

    const deleted = await fresh.client.delete(`${base}/${a.id}`);
    expect(deleted.body).toEqual({ id: a.id, object: "webhook_endpoint", deleted: true });
    expectProblem(await fresh.client.get(`${base}/${a.id}`), 404, /No such webhook endpoint/);
    expect((await fresh.client.get(base)).body.total).toBe(1);
  });

  it("answers without the account id, on the token's account, like /customers", async () => {
    const fresh = await newMerchant();
    const created = await fresh.client.post("/webhook-endpoints", { url: "https://unscoped.example.com/h", events: ["customer.created"] });
    expect(created.status, created.text).toBe(201);
    const list = await fresh.client.get("/webhook-endpoints");
    expect(list.status, list.text).toBe(200);
    expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([created.body.id]);
    expect((await fresh.client.get(`/${fresh.accountId}/webhook-endpoints`)).body.total).toBe(1);
    expect((await fresh.client.get(`/webhook-endpoints/${created.body.id}`)).body.url).toBe("https://unscoped.example.com/h");
    expect((await fresh.client.get(`/webhook-endpoints/${created.body.id}/deliveries`)).status).toBe(200);
    expect((await fresh.client.get("/events?limit=1")).status).toBe(200);
    expect((await fresh.client.get("/delivery-health")).status).toBe(200);
    expect((await fresh.client.get("/billing-status")).status).toBe(200);
    const other = await newMerchant();
    expectProblem(await other.client.get(`/webhook-endpoints/${created.body.id}`), 404);
  });

  it("hides another account's endpoints behind 404", async () => {
    const other = await newMerchant();
    const theirs = (await other.client.post(`/${other.accountId}/webhook-endpoints`, { url: await refusedUrl(), events: ["*"] })).body;
    for (const suffix of ["", "/deliveries"]) {
      expectProblem(await merchant.client.get(`${path()}/${theirs.id}${suffix}`), 404);
    }
    expectProblem(await merchant.client.post(`${path()}/${theirs.id}`, { enabled: false }), 404);
    expectProblem(await merchant.client.post(`${path()}/${theirs.id}/rotate-secret`), 404);
    expectProblem(await merchant.client.delete(`${path()}/${theirs.id}`), 404);
    expectProblem(await merchant.client.get(`/${other.accountId}/webhook-endpoints`), 403);
  });
});
