import { type Query } from "../helpers/api";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { EVENT_TYPES } from "@/lib/events/catalogue";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { refusedUrl } from "../helpers/receiver";

let merchant: Merchant;
let alice: { id: string };
let bob: { id: string };

beforeAll(async () => {
  merchant = await newMerchant();
  alice = (await merchant.client.post("/customers", { email: "alice@example.com" })).body;
  bob = (await merchant.client.post("/customers", { email: "bob@example.com" })).body;
  await merchant.client.post(`/customers/${alice.id}`, { name: "Alice" });
  await merchant.client.post(`/customers/${bob.id}`, { name: "Bob" });
  await merchant.client.delete(`/customers/${bob.id}`);
});

type EventItem = { id: string; type: string; aggregate_id: string; created: string };
const list = async (query: Query = "") => (await merchant.client.get(`/${merchant.accountId}/events${query}`)).body;
const summary = (items: EventItem[]) => items.map((e) => `${e.type} ${e.aggregate_id === alice.id ? "alice" : "bob"}`);

describe("GET /{account_id}/events", () => {
  it("lists every event newest first", async () => {
    const page = await list();
    expect(page.total).toBe(5);
    expect(summary(page.items)).toEqual([
      "customer.deleted bob",
      "customer.updated bob",
      "customer.updated alice",
      "customer.created bob",
      "customer.created alice",
    ]);
  });

  it("filters by event_id, aggregate_id, aggregate_type and event_type, alone and combined", async () => {
    const all: EventItem[] = (await list()).items;
    const one = all[2]!;
    expect((await list(`?event_id=${one.id}`)).items).toEqual([one]);
    expect(summary((await list(`?aggregate_id=${alice.id}`)).items)).toEqual([
      "customer.updated alice",
      "customer.created alice",
    ]);
    expect((await list("?aggregate_type=customer")).total).toBe(5);
    expect((await list("?aggregate_type=invoice")).total).toBe(0);
    expect(summary((await list("?event_type=customer.updated")).items)).toEqual([
      "customer.updated bob",
      "customer.updated alice",
    ]);
    expect(summary((await list(`?aggregate_id=${bob.id}&event_type=customer.deleted&aggregate_type=customer`)).items)).toEqual([
      "customer.deleted bob",
    ]);
    expect((await list(`?event_id=${one.id}&event_type=customer.deleted`)).total).toBe(0);
    expect((await list("?event_id=evt_prod_unknown")).total).toBe(0);
  });

  it("pages through the trail in a stable order", async () => {
    const all: EventItem[] = (await list()).items;
    const pages = [await list("?limit=2"), await list("?limit=2&offset=2"), await list("?limit=2&offset=4")];
    expect(pages.flatMap((p) => p.items)).toEqual(all);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
  });

  it("breaks ties of the same instant by id, newest first", async () => {
    const db = await getDb();
    const fresh = await newMerchant();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await fresh.client.post("/customers", { email: `t${i}@example.com` })).body.id);
    // Force all three events onto one instant: the id alone must order them.
    await db.execute(sql`update events set created = '2026-01-01T00:00:00Z' where account_id = ${fresh.accountId}`);
    const items: EventItem[] = (await fresh.client.get(`/${fresh.accountId}/events`)).body.items;
    expect(items.map((e) => e.aggregate_id)).toEqual([...ids].reverse());
  });

  it("refuses unknown event and aggregate types with 400", async () => {
    expectProblem(await merchant.client.get(`/${merchant.accountId}/events?event_type=customer.exploded`), 400, /event_type/);
    expectProblem(await merchant.client.get(`/${merchant.accountId}/events?aggregate_type=widget`), 400, /aggregate_type/);
  });

  it("serves every filter from an index, in created order, without sorting", async () => {
    const db = await getDb();
    const fresh = await newMerchant();
    // Enough rows with realistic selectivity that only the right index is cheap for each filter.
    await db.execute(sql`
      insert into events (id, account_id, type, aggregate_type, aggregate_id, data, metadata, version, sequence, created)
      select 'evt_prod_bulk' || i, ${fresh.accountId}, 'type.' || (i % 51), 'aggregate.' || (i % 11),
             'cus_prod_bulk' || (i % 1000), '{}', '{"synthetic": true}', 1, i / 1000 + 1, now() - (i || ' seconds')::interval
      from generate_series(1, 6000) as i`);
    await db.execute(sql`analyze events`);
    const filters = [
      ["", "events_account_created_idx"],
      ["and aggregate_id = 'cus_prod_bulk7'", "events_account_aggregate_idx"],
      ["and aggregate_type = 'aggregate.3'", "events_account_aggregate_type_idx"],
      ["and type = 'type.5'", "events_account_type_idx"],
    ] as const;
    for (const [filter, index] of filters) {
      const plan = await db.transaction(async (tx) => {
        // With these priced out, a Sort node remains only if no index yields the order.
        await tx.execute(sql`set local enable_seqscan = off`);
        await tx.execute(sql`set local enable_bitmapscan = off`);
        await tx.execute(sql`set local enable_sort = off`);
        await tx.execute(sql`set local enable_incremental_sort = off`);
        const result = await tx.execute(
          sql.raw(
            `explain select * from events where account_id = '${fresh.accountId}' ${filter} order by created desc, id desc limit 50`,
          ),
        );
        return (result as unknown as { "QUERY PLAN": string }[]).map((row) => row["QUERY PLAN"]).join("\n");
      });
      expect(plan, plan).toMatch(new RegExp(`Index Scan (Backward )?using ${index} `));
      expect(plan, plan).not.toMatch(/\bSort\b/);
    }
  });
});

describe("GET /{account_id}/events/{event_id} and its deliveries", () => {
  it("returns the event with every field of the spec", async () => {
    const [latest] = (await list("?limit=1")).items;
    const response = await merchant.client.get(`/${merchant.accountId}/events/${latest.id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(latest);
    expect(Object.keys(response.body).sort()).toEqual(
      [
        "id",
        "type",
        "aggregate_type",
        "aggregate_id",
        "data",
        "previous_data",
        "metadata",
        "correlation_id",
        "request_id",
        "version",
        "sequence",
        "created",
        "actor_type",
        "actor_id",
      ].sort(),
    );
    expect(EVENT_TYPES).toContain(response.body.type);
  });

  it("answers 404 for an unknown event and for another account's event", async () => {
    const other = await newMerchant();
    const { body: theirs } = await other.client.post("/customers", { email: "x@example.com" });
    const [theirEvent] = (await other.client.get(`/${other.accountId}/events?aggregate_id=${theirs.id}`)).body.items;
    for (const suffix of ["", "/deliveries", "/full"]) {
      expectProblem(await merchant.client.get(`/${merchant.accountId}/events/evt_prod_nope${suffix}`), 404, /No such event/);
      expectProblem(await merchant.client.get(`/${merchant.accountId}/events/${theirEvent.id}${suffix}`), 404);
    }
  });

  it("serves /deliveries as a bare array and /full as {event, deliveries, webhook}", async () => {
    const [latest] = (await list("?limit=1")).items;
    const deliveries = await merchant.client.get(`/${merchant.accountId}/events/${latest.id}/deliveries`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body).toEqual([]);
    const full = await merchant.client.get(`/${merchant.accountId}/events/${latest.id}/full`);
    expect(full.body).toEqual({ event: latest, deliveries: [], webhook: { body: expect.any(String), requests: [] } });
    // The body is the webhook payload, not the API event (tests/api/event-delivered.test.ts compares it with a receiver's).
    expect(JSON.parse(full.body.webhook.body)).toMatchObject({ id: latest.id, object: "event", created: Math.floor(Date.parse(latest.created) / 1000), data: { object: latest.data } });
  });

  it("is read-only", async () => {
    const [latest] = (await list("?limit=1")).items;
    expectProblem(await merchant.client.offContract.post(`/${merchant.accountId}/events`, { type: "customer.created" }), 405);
    expectProblem(await merchant.client.offContract.delete(`/${merchant.accountId}/events/${latest.id}`), 405);
  });
});

describe("fan-out", () => {
  it("records one delivery per subscribed endpoint, beyond the delivery ids emitEvent makes ahead", async () => {
    const fresh = await newMerchant();
    const endpoint = async (events: string[]) =>
      (await fresh.client.post(`/${fresh.accountId}/webhook-endpoints`, { url: await refusedUrl(), events })).body.id as string;
    const subscribed: string[] = [];
    for (let i = 0; i < 6; i++) subscribed.push(await endpoint(["customer.created"]));
    for (let i = 0; i < 5; i++) subscribed.push(await endpoint(["*"]));
    await endpoint(["invoice.paid"]);
    const customer = (await fresh.client.post("/customers", { email: "fanout@example.com" })).body;
    const [event] = (await fresh.client.get(`/${fresh.accountId}/events?aggregate_id=${customer.id}`)).body.items;
    expect(event.type).toBe("customer.created");
    const deliveries: { id: string; webhook_endpoint_id: string }[] = (await fresh.client.get(`/${fresh.accountId}/events/${event.id}/deliveries`)).body;
    expect(deliveries.map((d) => d.webhook_endpoint_id).sort()).toEqual([...subscribed].sort());
    expect(new Set(deliveries.map((d) => d.id)).size).toBe(11);
    expect(deliveries.every((d) => d.id.startsWith("ed_"))).toBe(true);
  });
});
