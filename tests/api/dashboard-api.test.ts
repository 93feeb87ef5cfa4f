import { describe, expect, it } from "vitest";
import { signUp } from "@/lib/teams/users";
import { verifyCredentials } from "@/lib/auth/users";
import { api } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { signedInUser } from "../helpers/session";

describe("dashboard sessions on the REST API", () => {
  it("manage API tokens: create (shown once), list without secrets, revoke (next call 401)", async () => {
    const { live, request } = await signedInUser();
    const created = await request("POST", `/${live.id}/api-tokens`, { body: { name: "CI", kind: "secret" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^key_prod_/),
      object: "api_token",
      name: "CI",
      kind: "secret",
      status: "active",
      token: expect.stringMatching(/^st_prod_[0-9a-z]{32}$/),
    });
    expect(created.body.display).toBe(`st_prod_…${created.body.token.slice(-4)}`);
    const token = created.body.token as string;
    expect((await api(token).get("/customers")).status).toBe(200);

    const list = await request("GET", `/${live.id}/api-tokens`);
    expect(list.body.total).toBe(1);
    expect(JSON.stringify(list.body)).not.toContain(token);
    expect(list.body.items[0].last_used_at).not.toBeNull();

    const revoked = await request("POST", `/${live.id}/api-tokens/${created.body.id}/revoke`);
    expect(revoked.body).toMatchObject({ status: "revoked", revoked_at: expect.any(String) });
    expect((await api(token).get("/customers")).status).toBe(401);
  });

  it("act as the user on events they cause", async () => {
    const { user, live, request } = await signedInUser();
    const created = await request("POST", `/${live.id}/customers`, { body: { email: "by-user@example.com" } });
    expect(created.status).toBe(201);
    const events = await request("GET", `/${live.id}/events?aggregate_id=${created.body.id}`);
    expect(events.body.items[0]).toMatchObject({ actor_type: "user", actor_id: user.id });
  });

  it("refuse cross-site changes: no Origin or another Origin is 403, reads are allowed", async () => {
    const { live, request } = await signedInUser();
    const body = { name: "x", kind: "secret" };
    expect((await request("POST", `/${live.id}/api-tokens`, { body, origin: null })).status).toBe(403);
    const foreign = await request("POST", `/${live.id}/api-tokens`, { body, origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.body.detail).toMatch(/Cross-site/);
    expect((await request("GET", `/${live.id}/api-tokens`, { origin: null })).body.total).toBe(0);
  });

  it("reach only the organization's accounts, and only under an account path", async () => {
    const { live, sandbox, request } = await signedInUser();
    const other = await newMerchant();
    expect((await request("GET", `/${sandbox.id}/events`)).status).toBe(200);
    expect((await request("GET", `/${other.accountId}/events`)).status).toBe(403);
    expect((await request("GET", `/${other.accountId}/api-tokens`)).status).toBe(403);
    expect((await request("GET", "/customers")).status).toBe(403);
    expect((await request("GET", `/${live.id}/customers`)).status).toBe(200);
  });

  it("API tokens cannot manage API tokens", async () => {
    const merchant = await newMerchant();
    expectProblem(await merchant.client.get(`/${merchant.accountId}/api-tokens`), 403, /dashboard/);
    expectProblem(await merchant.client.post(`/${merchant.accountId}/api-tokens`, { name: "x", kind: "secret" }), 403);
  });
});

describe("sign-up", () => {
  it("creates an organization with a live and a sandbox account, trialing; refuses a taken email", async () => {
    const email = `signup-${Date.now()}@example.com`;
    const user = await signUp({ name: "Ada", company: "Ada Co", email, password: "long enough password" });
    expect(await verifyCredentials(email.toUpperCase(), "long enough password")).toMatchObject({ id: user.id });
    expect(await verifyCredentials(email, "wrong password!")).toBeNull();
    await expect(signUp({ name: "Ada", company: "Ada Co", email, password: "long enough password" })).rejects.toThrow(/already exists/);
    await expect(signUp({ name: "", company: "x", email: "nope", password: "short" })).rejects.toMatchObject({
      category: "validation",
    });
  });
});

describe("delivery insights", () => {
  it("summarizes deliveries per event, per endpoint and per account, and sends test events", async () => {
    const merchant = await newMerchant();
    const base = `/${merchant.accountId}/webhook-endpoints` as const;
    const endpoint = (await merchant.client.post(base, { url: "https://127.0.0.1:9/none", events: ["customer.created"] })).body;
    expectProblem(await merchant.client.post(`${base}/${endpoint.id}/test`), 409, /create a customer first/);

    await merchant.client.post("/customers", { email: "sum@example.com" });
    const page = await merchant.client.get(`/${merchant.accountId}/events?expand=delivery_summary`);
    expect(page.body.items[0].delivery_summary).toMatchObject({ total: 1 });
    expect((await merchant.client.get(`/${merchant.accountId}/events`)).body.items[0]).not.toHaveProperty("delivery_summary");

    const test = await merchant.client.post(`${base}/${endpoint.id}/test`);
    expect(test.status).toBe(201);
    expect(test.body).toMatchObject({ webhook_endpoint_id: endpoint.id, event_id: page.body.items[0].id });

    const health = await merchant.client.get(`${base}/${endpoint.id}/health`);
    expect(health.body).toMatchObject({ total: 2, window_hours: 24 });
    expect(health.body.delivered + health.body.pending + health.body.retrying + health.body.failed).toBe(2);
    const account = await merchant.client.get(`/${merchant.accountId}/delivery-health`);
    expect(account.body.total).toBe(2);
  });
});
