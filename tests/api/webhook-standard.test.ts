import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { nextSequence } from "@/lib/events/sequence";
import { verifyWebhookSignature } from "@/docs/examples/verify-webhook";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually, type ReceivedRequest, type Receiver } from "../helpers/receiver";
import { deliveriesOf, latestEventOf, receiverEndpoint } from "../helpers/webhooks";

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function setup(events: string[] = ["*"]) {
  const merchant = await newMerchant();
  const { receiver, endpoint } = await receiverEndpoint(merchant, events);
  receivers.push(receiver);
  return { merchant, receiver, endpoint };
}

function headersOf(request: ReceivedRequest): Record<string, string> {
  return Object.fromEntries(Object.entries(request.headers as IncomingHttpHeaders).map(([k, v]) => [k, String(v)]));
}

/** The official verifier: returns the parsed payload, or throws WebhookVerificationError. */
function verifyStandard(secret: string, request: ReceivedRequest): unknown {
  return new Webhook(secret).verify(request.rawBody.toString("utf8"), headersOf(request));
}

/** An independent HMAC over `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the secret's base64 bytes. */
function independentSignatures(secret: string, request: ReceivedRequest): boolean[] {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const signed = Buffer.concat([
    Buffer.from(`${request.headers["webhook-id"]}.${request.headers["webhook-timestamp"]}.`),
    request.rawBody,
  ]);
  const expected = Buffer.from(createHmac("sha256", key).update(signed).digest("base64"));
  return String(request.headers["webhook-signature"])
    .split(" ")
    .map((part) => {
      const given = Buffer.from(part.replace(/^v1,/, ""));
      return part.startsWith("v1,") && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

describe("Standard Webhooks", () => {
  it("gives whsec_ + base64 secrets and signs every delivery for the official library and an independent HMAC", async () => {
    const { merchant, receiver, endpoint } = await setup();
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(endpoint.secret.slice(6), "base64")).toHaveLength(32);

    const { body: customer } = await merchant.client.post("/customers", { email: "std@example.com" });
    const [request] = await receiver.waitFor(1);
    const event = await latestEventOf(merchant, customer.id);

    expect(request!.headers["webhook-id"]).toBe(event.id);
    const timestamp = Number(request!.headers["webhook-timestamp"]);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(request!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verifyStandard(endpoint.secret, request!)).toEqual(request!.body);
    expect(independentSignatures(endpoint.secret, request!)).toEqual([true]);
    // The spec's headers are unchanged beside them.
    expect(request!.signatureValid).toBe(true);
    expect(request!.headers["x-webhook-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(request!.headers["x-webhook-event-id"]).toBe(event.id);
    expect(request!.headers["x-webhook-signature-previous"]).toBeUndefined();

    // A tampered body, another secret or a stale timestamp fail the official verifier.
    const tampered = { ...request!, rawBody: Buffer.from(request!.rawBody.toString().replace("std@", "evil@")) };
    expect(() => verifyStandard(endpoint.secret, tampered)).toThrow(WebhookVerificationError);
    expect(() => verifyStandard(`whsec_${Buffer.alloc(32, 7).toString("base64")}`, request!)).toThrow(WebhookVerificationError);
    const stale = { ...request!, headers: { ...request!.headers, "webhook-timestamp": String(timestamp - 3600) } };
    expect(() => verifyStandard(endpoint.secret, stale)).toThrow(/too old/);
  });

  it("keeps webhook-id across retries of one event and signs each attempt afresh", async () => {
    const { merchant, receiver, endpoint } = await setup();
    receiver.respond((_request, index) => (index === 0 ? { status: 503 } : { status: 200 }));
    await merchant.client.post("/customers", { email: "retry-std@example.com" });
    const [first, second] = await receiver.waitFor(2);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(second!.headers["x-webhook-attempt"]).toBe("2");
    for (const request of [first!, second!]) expect(verifyStandard(endpoint.secret, request)).toEqual(request.body);
  });
});

describe("rotation with overlap", () => {
  it("signs with both secrets during the overlap, verified by the official library with each", async () => {
    const { merchant, receiver, endpoint } = await setup();
    const path = `/${merchant.accountId}/webhook-endpoints/${endpoint.id}` as const;
    const before = Date.now();
    const rotated = await merchant.client.post(`${path}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const newSecret: string = rotated.body.secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(endpoint.secret);
    const expiry = Date.parse(rotated.body.previous_secret_expires_at);
    expect(expiry - before).toBeGreaterThanOrEqual(86_400_000 - 1000);
    expect(expiry - before).toBeLessThan(86_400_000 + 60_000);
    expect((await merchant.client.get(path)).body.previous_secret_expires_at).toBe(rotated.body.previous_secret_expires_at);

    await merchant.client.post("/customers", { email: "overlap@example.com" });
    const [request] = await receiver.waitFor(1);
    expect(String(request!.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verifyStandard(newSecret, request!)).toEqual(request!.body);
    expect(verifyStandard(endpoint.secret, request!)).toEqual(request!.body);
    expect(independentSignatures(newSecret, request!)).toEqual([true, false]);
    expect(independentSignatures(endpoint.secret, request!)).toEqual([false, true]);
    // The spec's single-valued header: the new secret's; the old one's beside it.
    expect(verifyWebhookSignature(request!.rawBody, String(request!.headers["x-webhook-signature"]), newSecret)).toBe(true);
    expect(verifyWebhookSignature(request!.rawBody, String(request!.headers["x-webhook-signature-previous"]), endpoint.secret)).toBe(true);

    // overlap_seconds 0: the replaced secret stops at once.
    const immediate = await merchant.client.post(`${path}/rotate-secret`, { overlap_seconds: 0 });
    expect(immediate.body.previous_secret_expires_at).toBeNull();
    await merchant.client.post("/customers", { email: "cut@example.com" });
    // By its customer, not as the second request: the first delivery may come twice.
    const cut = await receiver.first((request) => request.body.data.object.email === "cut@example.com");
    expect(String(cut.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    expect(cut.headers["x-webhook-signature-previous"]).toBeUndefined();
    expect(verifyStandard(immediate.body.secret, cut)).toEqual(cut.body);
    expect(() => verifyStandard(newSecret, cut)).toThrow(WebhookVerificationError);
    expect(() => verifyStandard(endpoint.secret, cut)).toThrow(WebhookVerificationError);
  });

  it("stops the previous secret when the overlap ends", async () => {
    const { merchant, receiver, endpoint } = await setup();
    const path = `/${merchant.accountId}/webhook-endpoints/${endpoint.id}` as const;
    const rotated = await merchant.client.post(`${path}/rotate-secret`, { overlap_seconds: 1 });
    // Waited for (the overlap's end), not slept through.
    await eventually(async () => (await merchant.client.get(path)).body.previous_secret_expires_at, (expiresAt) => expiresAt === null);
    await merchant.client.post("/customers", { email: "expired@example.com" });
    const [request] = await receiver.waitFor(1);
    expect(verifyStandard(rotated.body.secret, request!)).toEqual(request!.body);
    expect(() => verifyStandard(endpoint.secret, request!)).toThrow(WebhookVerificationError);
  });

  it("refuses a bad overlap with 422 and keeps the secret", async () => {
    const { merchant, receiver, endpoint } = await setup();
    const path = `/${merchant.accountId}/webhook-endpoints/${endpoint.id}/rotate-secret` as const;
    for (const overlap of [-1, 1.5, "86400", 8 * 86_400]) {
      expectProblem(await merchant.client.post(path, { overlap_seconds: overlap }), 422, /overlap_seconds/);
    }
    expectProblem(await merchant.client.post(path, { overlap: 5 }), 422);
    await merchant.client.post("/customers", { email: "kept@example.com" });
    const [request] = await receiver.waitFor(1);
    expect(verifyStandard(endpoint.secret, request!)).toEqual(request!.body);
    expect(String(request!.headers["webhook-signature"]).split(" ")).toHaveLength(1);
  });
});

describe("sequence per aggregate", () => {
  it("numbers one entity's events 1, 2, 3… in the event object and the webhook payload", async () => {
    const { merchant, receiver } = await setup(["customer.created", "customer.updated"]);
    const { body: customer } = await merchant.client.post("/customers", { email: "seq@example.com", name: "A" });
    await merchant.client.post(`/customers/${customer.id}`, { name: "B" });
    await merchant.client.post(`/customers/${customer.id}`, { name: "C" });
    const { body: other } = await merchant.client.post("/customers", { email: "other@example.com" });

    const timeline = (await merchant.client.get(`/${merchant.accountId}/events?aggregate_id=${customer.id}`)).body.items;
    expect(timeline.map((e: { sequence: number }) => e.sequence)).toEqual([3, 2, 1]);
    expect((await latestEventOf(merchant, other.id)).sequence).toBe(1);
    const single = await merchant.client.get(`/${merchant.accountId}/events/${timeline[0].id}`);
    expect(single.body.sequence).toBe(3);

    const requests = await receiver.waitFor(4);
    const ofCustomer = requests.filter((r) => r.body.data.object.id === customer.id);
    expect(ofCustomer.map((r) => r.body.sequence).sort()).toEqual([1, 2, 3]);
    for (const request of ofCustomer) {
      expect(request.body.sequence).toBe(timeline.find((e: { id: string }) => e.id === request.body.id).sequence);
    }
  });

  it("never gives two concurrent changes of one entity the same number", async () => {
    const merchant = await newMerchant();
    const { body: customer } = await merchant.client.post("/customers", { email: "race@example.com" });
    const updates = await Promise.all(
      Array.from({ length: 8 }, (_, i) => merchant.client.post(`/customers/${customer.id}`, { name: `Name ${i}` })),
    );
    expect(updates.every((u) => u.status === 200)).toBe(true);
    const timeline = (await merchant.client.get(`/${merchant.accountId}/events?aggregate_id=${customer.id}&limit=100`)).body.items;
    const sequences = timeline.map((e: { sequence: number }) => e.sequence).sort((a: number, b: number) => a - b);
    expect(sequences).toEqual(Array.from({ length: timeline.length }, (_, i) => i + 1));
    expect(timeline.length).toBeGreaterThanOrEqual(2);

    // Without any entity lock: the counter alone serializes emitters, and a rollback leaves no gap.
    const db = await getDb();
    const aggregateId = `cus_prod_race${Date.now()}`;
    const given = await Promise.all(
      Array.from({ length: 12 }, () => db.transaction((tx) => nextSequence(tx, merchant.accountId, aggregateId))),
    );
    expect([...given].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    await expect(
      db.transaction(async (tx) => {
        await nextSequence(tx, merchant.accountId, aggregateId);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await db.transaction((tx) => nextSequence(tx, merchant.accountId, aggregateId))).toBe(13);
  });
});

describe("the deliveries of a rotated endpoint", () => {
  it("still deliver with the endpoint's deliveries API unchanged", async () => {
    const { merchant, endpoint } = await setup(["customer.created"]);
    await merchant.client.post(`/${merchant.accountId}/webhook-endpoints/${endpoint.id}/rotate-secret`, { overlap_seconds: 60 });
    const { body: customer } = await merchant.client.post("/customers", { email: "api@example.com" });
    const event = await latestEventOf(merchant, customer.id);
    const [delivery] = await deliveriesOf(merchant, event.id, (d) => d[0]?.status === "delivered");
    expect(delivery).toMatchObject({ webhook_endpoint_id: endpoint.id, status: "delivered", attempt_count: 1 });
  });
});
