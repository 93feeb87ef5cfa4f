import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "@/lib/events/catalogue";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually, type ReceivedRequest, type Receiver } from "../helpers/receiver";
import { latestEventOf, receiverEndpoint } from "../helpers/webhooks";

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function setup(events: string[] = ["*"]) {
  const merchant = await newMerchant();
  const { receiver, endpoint } = await receiverEndpoint(merchant, events);
  receivers.push(receiver);
  return { merchant, receiver, endpoint, path: `/${merchant.accountId}/webhook-endpoints/${endpoint.id}` as const };
}

const verified = (secret: string, request: ReceivedRequest) =>
  new Webhook(secret).verify(
    request.rawBody.toString("utf8"),
    Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)])),
  );

describe("test events by type", () => {
  it("sends a realistic, signed sample of the chosen type, marked as a test, listed in the endpoint's deliveries", async () => {
    const { merchant, receiver, endpoint, path } = await setup(["customer.created"]);
    const sent = await merchant.client.post(`${path}/test`, { type: "invoice.paid" });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ webhook_endpoint_id: endpoint.id, event_id: expect.stringMatching(/^evt_prod_/) });

    const [request] = await receiver.waitFor(1);
    expect(request!.signatureValid).toBe(true);
    expect(verified(endpoint.secret, request!)).toEqual(request!.body);
    expect(request!.body).toMatchObject({
      id: sent.body.event_id,
      type: "invoice.paid",
      test: true,
      livemode: true,
      sequence: 1,
      data: { object: { object: "invoice", status: "paid", livemode: true, id: expect.stringMatching(/^in_prod_/) } },
    });
    const invoice = request!.body.data.object;
    expect(invoice.paid_amount_atom).toBe(invoice.total_amount_atom);
    expect(invoice.due_amount_atom).toBe(0);
    expect(Object.keys(request!.body.data.previous_attributes)).toContain("status");

    const event = (await merchant.client.get(`/${merchant.accountId}/events/${sent.body.event_id}`)).body;
    expect(event).toMatchObject({ type: "invoice.paid", metadata: { test: true }, aggregate_id: invoice.id, sequence: 1 });
    const deliveries = await eventually(
      async () => (await merchant.client.get(`${path}/deliveries`)).body.items,
      (items: { id: string; status: string }[]) => items.some((d) => d.id === sent.body.id && d.status === "delivered"),
    );
    expect(deliveries).toHaveLength(1);

    // Each sample is an entity of its own.
    const again = await merchant.client.post(`${path}/test`, { type: "invoice.paid" });
    expect(again.status).toBe(201);
    // By its event, not as the second request: the first sample's delivery may come twice.
    const second = await receiver.first((r) => r.body.id === again.body.event_id);
    expect(second.body.data.object.id).not.toBe(invoice.id);
  });

  it("has a sample with every field the serializers emit, for every catalogue type", async () => {
    const { merchant, receiver, path } = await setup();
    // Real entities of four aggregates, next to their samples.
    const { body: customer } = await merchant.client.post("/customers", { email: "real@example.com", name: "Real" });
    const { body: product } = await merchant.client.post("/products", { name: "Real" });
    await merchant.client.post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 100, type: "one_time" });
    await merchant.client.post("/coupons", { percent_off: 5, duration: "forever" });
    // Read by type, not by a count of requests: delivery is at least once, and on a busy machine a
    // delivery whose answer the sender did not read in time comes again (a run beside another
    // counted such a repeat as the last sample, 2026-12-05), as may a real event of the account's own.
    const realTypes = ["customer.created", "product.created", "price.created", "coupon.created"];
    const real = await Promise.all(realTypes.map((type) => receiver.first((r) => r.body.type === type && r.body.test !== true)));
    for (const type of EVENT_TYPES) {
      const sent = await merchant.client.post(`${path}/test`, { type });
      expect(sent.status, `${type}: ${sent.text}`).toBe(201);
    }
    const sampleTypes = (requests: ReceivedRequest[]) => new Set(requests.filter((r) => r.body.test === true).map((r) => r.body.type));
    const all = await receiver.waitFor((requests) => sampleTypes(requests).size >= EVENT_TYPES.length, 60_000);
    const samples = all.filter((r) => r.body.test === true);
    expect(sampleTypes(all)).toEqual(new Set(EVENT_TYPES));
    for (const realRequest of real) {
      const sample = samples.find((r) => r.body.type === realRequest.body.type)!;
      expect(Object.keys(sample.body.data.object).sort(), realRequest.body.type).toEqual(
        Object.keys(realRequest.body.data.object).sort(),
      );
      expect(realRequest.body.test).toBeUndefined();
    }
    expect(customer.id).toMatch(/^cus_/);
  });

  it("refuses an unknown type with 422, and keeps the old behaviour without a type", async () => {
    const { merchant, receiver, path } = await setup(["customer.created"]);
    expectProblem(await merchant.client.post(`${path}/test`, { type: "customer.exploded" }), 422, /type/);
    expectProblem(await merchant.client.post(`${path}/test`, {}), 409, /no event of a subscribed type/);
    const { body: customer } = await merchant.client.post("/customers", { email: "resend@example.com" });
    await receiver.waitFor(1);
    const resent = await merchant.client.post(`${path}/test`);
    expect(resent.status).toBe(201);
    const [, again] = await receiver.waitFor(2);
    expect(again!.body.data.object.id).toBe(customer.id);
    expect(again!.body.test).toBeUndefined();
  });
});

describe("replay a window", () => {
  it("delivers every subscribed event of the window again, delivered ones included, with the same webhook-id", async () => {
    const { merchant, receiver, endpoint, path } = await setup(["customer.created", "customer.updated"]);
    const { body: first } = await merchant.client.post("/customers", { email: "one@example.com" });
    await merchant.client.post(`/customers/${first.id}`, { name: "One" });
    const since = new Date(Date.parse((await latestEventOf(merchant, first.id)).created) + 1).toISOString();
    // The next events are created after `since` (a condition on the clock, not a fixed sleep).
    while (Date.now() <= Date.parse(since)) await new Promise((resolve) => setTimeout(resolve, 1));
    const { body: second } = await merchant.client.post("/customers", { email: "two@example.com" });
    await merchant.client.post("/products", { name: "Not subscribed" });
    const { body: third } = await merchant.client.post("/customers", { email: "three@example.com" });
    await receiver.waitFor(4);

    const replay = await merchant.client.post(`${path}/replay`, { since });
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ object: "webhook_replay", replayed: 2, has_more: false, since });
    const requests = await receiver.waitFor(6);
    const replayed = requests.slice(4);
    expect(replayed.map((r) => r.body.data.object.id).sort()).toEqual([second.id, third.id].sort());
    for (const request of replayed) {
      expect(request.headers["webhook-id"]).toBe(request.body.id);
      expect(requests.filter((r) => r.body.id === request.body.id)).toHaveLength(2);
      expect(verified(endpoint.secret, request)).toEqual(request.body);
    }

    // A bounded window, continued with starting_after.
    const until = (await latestEventOf(merchant, third.id)).created;
    const page = await merchant.client.post(`${path}/replay`, { since, until, starting_after: replay.body.next_starting_after });
    expect(page.body).toMatchObject({ replayed: 0, has_more: false, next_starting_after: null });
  });

  it("refuses a bad window with 422, a disabled endpoint with 409, and changes nothing", async () => {
    const { merchant, receiver, path } = await setup();
    await merchant.client.post("/customers", { email: "w@example.com" });
    await receiver.waitFor(1);
    const now = new Date().toISOString();
    expectProblem(await merchant.client.post(`${path}/replay`, { since: now, until: "2020-01-01T00:00:00Z" }), 422, /until/);
    expectProblem(await merchant.client.post(`${path}/replay`, { since: "yesterday" }), 422, /since/);
    expectProblem(await merchant.client.post(`${path}/replay`, {}), 400, /since/);
    expectProblem(await merchant.client.post(`${path}/replay`, { since: "2020-01-01T00:00:00Z", starting_after: "evt_prod_nope" }), 422, /starting_after/);
    await merchant.client.post(path, { enabled: false });
    expectProblem(await merchant.client.post(`${path}/replay`, { since: "2020-01-01T00:00:00Z" }), 409, /disabled/);
    expect((await merchant.client.get(`${path}/deliveries`)).body.total).toBe(1);
  });
});
