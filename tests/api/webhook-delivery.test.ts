import { afterEach, describe, expect, it } from "vitest";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually, refusedUrl, type Receiver } from "../helpers/receiver";
import { deliveriesOf, latestEventOf, receiverEndpoint } from "../helpers/webhooks";
import { TEST_RETRY_DELAYS } from "../setup/api-server";

// The app runs with WEBHOOK_RETRY_DELAYS=300ms×5 and a 1.5 s deadline (tests/setup/api-server.ts).
const RETRY_MS = 300;
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function setup(events: string[] = ["*"], url?: string) {
  const merchant = await newMerchant();
  const { receiver, endpoint } = await receiverEndpoint(merchant, events, url);
  receivers.push(receiver);
  return { merchant, receiver, endpoint };
}

const finished = (d: { status: string; next_retry_at: string | null }) =>
  d.status === "delivered" || (d.status === "failed" && d.next_retry_at === null);

describe("webhook delivery (embedded driver, real HTTPS receiver)", () => {
  it("fans out one delivery per subscribed, enabled endpoint in the event's transaction", async () => {
    const { merchant, endpoint } = await setup(["customer.created"]);
    const base = `/${merchant.accountId}/webhook-endpoints` as const;
    await merchant.client.post(base, { url: "https://invoices.example.com", events: ["invoice.paid"] });
    const disabled = (await merchant.client.post(base, { url: "https://off.example.com", events: ["*"], enabled: false })).body;
    expect(disabled.enabled).toBe(false);

    const { body: customer } = await merchant.client.post("/customers", { email: "fan@example.com" });
    const event = await latestEventOf(merchant, customer.id);
    const deliveries = await deliveriesOf(merchant, event.id, (d) => d.length > 0);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      id: expect.stringMatching(/^ed_prod_/),
      event_id: event.id,
      webhook_endpoint_id: endpoint.id,
      webhook_endpoint_url: endpoint.url,
    });
  });

  it("delivers a signed customer.created with the spec's headers and payload, and records it", async () => {
    const { merchant, receiver, endpoint } = await setup();
    const { body: customer } = await merchant.client.post("/customers", { email: "hook@example.com", name: "Hook" });
    const [request] = await receiver.waitFor(1);
    const event = await latestEventOf(merchant, customer.id);

    expect(request!.signatureValid).toBe(true);
    expect(request!.method).toBe("POST");
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["x-webhook-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(request!.headers["x-webhook-event-id"]).toBe(event.id);
    expect(request!.headers["x-webhook-event-type"]).toBe("customer.created");
    expect(request!.headers["x-webhook-delivery-id"]).toMatch(/^ed_prod_/);
    expect(request!.headers["x-webhook-attempt"]).toBe("1");
    expect(request!.body).toEqual({
      id: event.id,
      object: "event",
      type: "customer.created",
      sequence: 1,
      created: Math.floor(Date.parse(event.created) / 1000),
      livemode: true,
      data: { object: event.data },
    });

    const [delivery] = await deliveriesOf(merchant, event.id, (d) => d[0]?.status === "delivered");
    expect(delivery).toMatchObject({
      id: request!.headers["x-webhook-delivery-id"],
      webhook_endpoint_id: endpoint.id,
      status: "delivered",
      attempt_count: 1,
      delivered_at: expect.any(String),
      last_attempt_at: expect.any(String),
      next_retry_at: null,
      response_status: 200,
      error: null,
    });
    const full = await merchant.client.get(`/${merchant.accountId}/events/${event.id}/full`);
    expect(full.body.deliveries).toEqual([delivery]);
    const attempts = await merchant.client.get(`/${merchant.accountId}/deliveries/${delivery.id}/attempts`);
    expect(attempts.body).toEqual([
      expect.objectContaining({ attempt_number: 1, trigger: "scheduled", outcome: "delivered", response_status: 200, response_excerpt: "ok" }),
    ]);
  });

  it("sends previous_attributes with the changed top-level fields on updates", async () => {
    const { merchant, receiver } = await setup(["customer.updated"]);
    const { body: customer } = await merchant.client.post("/customers", { email: "a@example.com", name: "A" });
    await merchant.client.post(`/customers/${customer.id}`, { name: "B" });
    const [request] = await receiver.waitFor(1);
    expect(request!.body.type).toBe("customer.updated");
    expect(request!.body.data.object.name).toBe("B");
    expect(Object.keys(request!.body.data.previous_attributes).sort()).toEqual(["name", "updated"]);
    expect(request!.body.data.previous_attributes.name).toBe("A");
  });

  it("stops at once after a 4xx: failed permanently", async () => {
    const { merchant, receiver } = await setup();
    receiver.respond({ status: 404, body: "no such hook" });
    const { body: customer } = await merchant.client.post("/customers", { email: "gone@example.com" });
    const event = await latestEventOf(merchant, customer.id);
    const [delivery] = await deliveriesOf(merchant, event.id, (d) => d[0] !== undefined && finished(d[0]));
    expect(delivery).toMatchObject({
      status: "failed",
      attempt_count: 1,
      response_status: 404,
      next_retry_at: null,
      delivered_at: null,
      error: expect.stringMatching(/HTTP 404/),
    });
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS * 3));
    expect(receiver.requests).toHaveLength(1);
  });

  it("records an answer whose body holds NUL bytes or more than 4 KB (the excerpt is cut and made storable)", async () => {
    const { merchant, receiver } = await setup();
    receiver.respond((_request, index) => ({ status: 200, body: index === 0 ? "ok\u0000done" : "x".repeat(10_000) }));
    const deliveries = [];
    for (const email of ["nul@example.com", "long@example.com"]) {
      const { body: customer } = await merchant.client.post("/customers", { email });
      const event = await latestEventOf(merchant, customer.id);
      deliveries.push((await deliveriesOf(merchant, event.id, (d) => d[0]?.status === "delivered"))[0]!);
    }
    const excerpts = [];
    for (const delivery of deliveries) {
      const attempts = (await merchant.client.get(`/${merchant.accountId}/deliveries/${delivery.id}/attempts`)).body;
      expect(attempts[0]).toMatchObject({ outcome: "delivered", response_status: 200 });
      excerpts.push(attempts[0].response_excerpt);
    }
    expect(excerpts[0]).toBe("ok\uFFFDdone");
    expect(excerpts[1]).toHaveLength(4096);
  });

  it("retries a 5xx on the schedule, then fails permanently after the fifth retry", async () => {
    const { merchant, receiver } = await setup();
    receiver.respond({ status: 500, body: "boom" });
    const { body: customer } = await merchant.client.post("/customers", { email: "flaky@example.com" });
    const event = await latestEventOf(merchant, customer.id);

    // Between attempts the delivery is failed with a retry scheduled.
    const [waiting] = await deliveriesOf(merchant, event.id, (d) => d[0]?.status === "failed" && d[0].next_retry_at !== null);
    expect(waiting).toMatchObject({ response_status: 500, error: expect.stringMatching(/HTTP 500/) });

    const [delivery] = await deliveriesOf(merchant, event.id, (d) => d[0] !== undefined && finished(d[0]));
    expect(delivery).toMatchObject({ status: "failed", attempt_count: 6, next_retry_at: null, response_status: 500 });
    const requests = receiver.requests;
    expect(requests.map((r) => r.headers["x-webhook-attempt"])).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(new Set(requests.map((r) => r.headers["x-webhook-delivery-id"])).size).toBe(1);
    expect(new Set(requests.map((r) => r.rawBody.toString("base64"))).size).toBe(1);
    expect(requests.every((r) => r.signatureValid)).toBe(true);
    for (let i = 1; i < requests.length; i++) {
      expect(requests[i]!.receivedAt - requests[i - 1]!.receivedAt).toBeGreaterThanOrEqual(RETRY_MS - 20);
    }
    expect(TEST_RETRY_DELAYS.split(",")).toHaveLength(5);
    const attempts = (await merchant.client.get(`/${merchant.accountId}/deliveries/${delivery.id}/attempts`)).body;
    expect(attempts.map((a: { outcome: string }) => a.outcome)).toEqual(["retry", "retry", "retry", "retry", "retry", "failed"]);
    expect(attempts[0].response_excerpt).toBe("boom");
  });

  it("treats a hang past the deadline as a retryable failure", async () => {
    const { merchant, receiver } = await setup();
    receiver.respond((_request, index) => (index === 0 ? "hang" : { status: 204 }));
    const { body: customer } = await merchant.client.post("/customers", { email: "slow@example.com" });
    const event = await latestEventOf(merchant, customer.id);
    const [delivery] = await deliveriesOf(merchant, event.id, (d) => d[0]?.status === "delivered");
    expect(delivery).toMatchObject({ attempt_count: 2, response_status: 204, error: null });
    const attempts = (await merchant.client.get(`/${merchant.accountId}/deliveries/${delivery.id}/attempts`)).body;
    expect(attempts[0]).toMatchObject({ outcome: "retry", response_status: null, error: "No response within 1500 ms." });
    expect(attempts[0].duration_ms).toBeGreaterThanOrEqual(1450);
  });

  it("retries an unreachable endpoint (connection refused) and a redirect, never following it", async () => {
    const refused = await setup(["*"], await refusedUrl());
    const { body: customer } = await refused.merchant.client.post("/customers", { email: "nobody@example.com" });
    const event = await latestEventOf(refused.merchant, customer.id);
    const [delivery] = await deliveriesOf(refused.merchant, event.id, (d) => d[0] !== undefined && finished(d[0]));
    expect(delivery).toMatchObject({ status: "failed", attempt_count: 6, response_status: null, error: "Connection refused by the endpoint." });

    const redirect = await setup();
    redirect.receiver.respond((_request, index) => (index === 0 ? { status: 301 } : { status: 200 }));
    const { body: other } = await redirect.merchant.client.post("/customers", { email: "moved@example.com" });
    const otherEvent = await latestEventOf(redirect.merchant, other.id);
    const [moved] = await deliveriesOf(redirect.merchant, otherEvent.id, (d) => d[0]?.status === "delivered");
    expect(moved.attempt_count).toBe(2);
    expect(redirect.receiver.requests.every((r) => r.path === "/webhooks")).toBe(true);
  });

  it("signs with the rotated secret from the next attempt on", async () => {
    const { merchant, receiver, endpoint } = await setup();
    const rotated = await merchant.client.post(`/${merchant.accountId}/webhook-endpoints/${endpoint.id}/rotate-secret`);
    receiver.useSecret(rotated.body.secret);
    await merchant.client.post("/customers", { email: "rotated@example.com" });
    const [request] = await receiver.waitFor(1);
    expect(request!.signatureValid).toBe(true);
    receiver.useSecret(endpoint.secret);
    await merchant.client.post("/customers", { email: "rotated2@example.com" });
    const requests = await receiver.waitFor(2);
    expect(requests[1]!.signatureValid).toBe(false);
  });
});

describe("manual retry", () => {
  it("makes one new attempt of a permanently failed delivery, and 409 for any other state", async () => {
    const { merchant, receiver } = await setup();
    receiver.respond({ status: 410 });
    const { body: customer } = await merchant.client.post("/customers", { email: "retry@example.com" });
    const event = await latestEventOf(merchant, customer.id);
    const [failed] = await deliveriesOf(merchant, event.id, (d) => d[0]?.status === "failed");

    receiver.respond({ status: 200, body: "recovered" });
    const retried = await merchant.client.post(`/${merchant.accountId}/deliveries/${failed.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ id: failed.id, status: "delivered", attempt_count: 2, response_status: 200, error: null });
    expect(receiver.requests.map((r) => r.headers["x-webhook-attempt"])).toEqual(["1", "2"]);
    const attempts = (await merchant.client.get(`/${merchant.accountId}/deliveries/${failed.id}/attempts`)).body;
    expect(attempts.map((a: { trigger: string }) => a.trigger)).toEqual(["scheduled", "manual"]);

    const again = await merchant.client.post(`/${merchant.accountId}/deliveries/${failed.id}/retry`);
    expectProblem(again, 409, /permanently failed/);
    expect(receiver.requests).toHaveLength(2);
  });

  it("refuses to retry a delivery whose endpoint was deleted", async () => {
    const { merchant, receiver, endpoint } = await setup();
    receiver.respond({ status: 404 });
    const { body: customer } = await merchant.client.post("/customers", { email: "orphan@example.com" });
    const event = await latestEventOf(merchant, customer.id);
    const [failed] = await deliveriesOf(merchant, event.id, (d) => d[0]?.status === "failed");
    await merchant.client.delete(`/${merchant.accountId}/webhook-endpoints/${endpoint.id}`);
    receiver.respond({ status: 200 });
    expectProblem(await merchant.client.post(`/${merchant.accountId}/deliveries/${failed.id}/retry`), 409, /deleted/);
    expect(receiver.requests).toHaveLength(1);
  });

  it("refuses a delivery that still has retries scheduled, and hides other accounts' deliveries", async () => {
    const { merchant, receiver } = await setup();
    receiver.respond({ status: 503 });
    const { body: customer } = await merchant.client.post("/customers", { email: "busy@example.com" });
    const event = await latestEventOf(merchant, customer.id);
    const [waiting] = await deliveriesOf(merchant, event.id, (d) => d[0]?.status === "failed" && d[0].next_retry_at !== null);
    expectProblem(await merchant.client.post(`/${merchant.accountId}/deliveries/${waiting.id}/retry`), 409, /scheduled|being attempted/);

    const other = await newMerchant();
    for (const suffix of ["", "/attempts"]) {
      expectProblem(await other.client.get(`/${other.accountId}/deliveries/${waiting.id}${suffix}`), 404, /No such delivery/);
    }
    expectProblem(await other.client.post(`/${other.accountId}/deliveries/${waiting.id}/retry`), 404);
  });

  it("retries an endpoint's failed deliveries in bulk", async () => {
    const { merchant, receiver, endpoint } = await setup();
    receiver.respond({ status: 400 });
    const since = new Date(Date.now() - 1000).toISOString();
    for (const email of ["b1@example.com", "b2@example.com"]) await merchant.client.post("/customers", { email });
    const base = `/${merchant.accountId}/webhook-endpoints/${endpoint.id}` as const;
    await eventually(
      async () => (await merchant.client.get(`${base}/deliveries?status=failed`)).body.total,
      (total) => total === 2,
    );
    receiver.respond({ status: 200 });
    const result = await merchant.client.post(`${base}/retry-failed`, { since });
    expect(result.body).toEqual({ retried: 2, delivered: 2, failed: 0, has_more: false });
    expect((await merchant.client.get(`${base}/deliveries?status=delivered`)).body.total).toBe(2);
    expect((await merchant.client.post(`${base}/retry-failed`, { since })).body.retried).toBe(0);
    expectProblem(await merchant.client.post(`${base}/retry-failed`, { since: "yesterday" }), 422);
  });
});
