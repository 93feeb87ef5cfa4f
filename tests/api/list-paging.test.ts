import { type Query } from "../helpers/api";
import { and, count, eq, gte, lt } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { getDb } from "@/db/client";
import { events } from "@/db/schema";
import { loadSyntheticEvents } from "@/db/synthetic-events";
import { OFFSET_MAX } from "@/lib/api/pagination";
import { EVENT_TYPES, aggregateTypeOf, type EventType } from "@/lib/events/catalogue";
import { recountEvents } from "@/lib/events/counts";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction } from "@/lib/events/transaction";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

// Totals kept beside the events (event_counts) against count(*), and cursor paging.

let merchant: Merchant;
let sql: postgres.Sql;
const DAY = 86_400_000;
/** Synthetic events over five whole UTC days, so that ranges cross day buckets and cut days. */
const FROM = new Date(Date.UTC(2026, 5, 1));
const TO = new Date(FROM.getTime() + 5 * DAY);

type Filters = { event_id?: string; aggregate_id?: string; aggregate_type?: string; event_type?: string; gte?: Date; lt?: Date };

function queryOf(filters: Filters, extra = ""): Query {
  const params = new URLSearchParams();
  for (const key of ["event_id", "aggregate_id", "aggregate_type", "event_type"] as const) {
    if (filters[key]) params.set(key, filters[key]!);
  }
  if (filters.gte) params.set("created[gte]", filters.gte.toISOString());
  if (filters.lt) params.set("created[lt]", filters.lt.toISOString());
  return `?${params.toString()}${extra}`;
}

async function countRows(filters: Filters): Promise<number> {
  const db = await getDb();
  const [row] = await db
    .select({ n: count() })
    .from(events)
    .where(
      and(
        eq(events.accountId, merchant.accountId),
        filters.event_id ? eq(events.id, filters.event_id) : undefined,
        filters.aggregate_id ? eq(events.aggregateId, filters.aggregate_id) : undefined,
        filters.aggregate_type ? eq(events.aggregateType, filters.aggregate_type) : undefined,
        filters.event_type ? eq(events.type, filters.event_type) : undefined,
        filters.gte ? gte(events.created, filters.gte) : undefined,
        filters.lt ? lt(events.created, filters.lt) : undefined,
      ),
    );
  return row!.n;
}

async function apiTotal(filters: Filters): Promise<number> {
  const response = await merchant.client.get(`/${merchant.accountId}/events${queryOf(filters, "&limit=1")}`);
  expect(response.status, response.text).toBe(200);
  return response.body.total;
}

beforeAll(async () => {
  merchant = await newMerchant();
  sql = postgres(inject("databaseUrl"), { max: 2, onnotice: () => {} });
  // Six batches, two at once (the pool's two connections): each batch holds events of every one of
  // the load's 300 entities and of the same days, so the two upsert the same event_sequences and
  // event_counts rows at once; the totals below must still be exact (db/synthetic-events.ts).
  await loadSyntheticEvents(sql, { accountId: merchant.accountId, events: 3_000, from: FROM, to: TO, batch: 500, connections: 2 });
});

afterAll(async () => {
  await sql.end({ timeout: 5 });
});

describe("event totals", () => {
  it("the load's two writers at once left every entity its last sequence and counted every event once", async () => {
    const [row] = await sql<{ loaded: number; entities: number; wrong: number; counted: number }[]>`
      with loaded as (select aggregate_id from events where account_id = ${merchant.accountId} and metadata @> '{"synthetic": true}')
      select (select count(*)::int from loaded) as loaded,
             (select count(*)::int from event_sequences where account_id = ${merchant.accountId} and aggregate_id in (select aggregate_id from loaded)) as entities,
             (select count(*)::int from event_sequences s
                join (select aggregate_id, max(sequence) as last from events where account_id = ${merchant.accountId} group by 1) e using (aggregate_id)
               where s.account_id = ${merchant.accountId} and s.last_sequence <> e.last) as wrong,
             (select coalesce(sum(count), 0)::int from event_counts
               where account_id = ${merchant.accountId} and dimension = 'all' and day >= (${FROM}::timestamptz at time zone 'UTC')::date and day < (${TO}::timestamptz at time zone 'UTC')::date) as counted`;
    // The load's days (FROM to TO) hold only its events: each counted once.
    expect(row).toEqual({ loaded: 3_000, entities: 300, wrong: 0, counted: 3_000 });
  });

  it("stay exact for every filter after creates, updates, deletes, concurrent writers and a rollback", async () => {
    const client = merchant.client;
    const alice = (await client.post("/customers", { email: "alice@example.com" })).body;
    await client.post(`/customers/${alice.id}`, { name: "Alice" });
    const bob = (await client.post("/customers", { email: "bob@example.com" })).body;
    await client.delete(`/customers/${bob.id}`);
    // 24 writers at once on one account: they share the counter rows of the same day and type.
    const created = await Promise.all(
      Array.from({ length: 24 }, (_, i) => client.post("/customers", { email: `c${i}@example.com` })),
    );
    expect(created.map((response) => response.status)).toEqual(Array(24).fill(201));
    const before = await apiTotal({});
    // A change whose transaction rolls back after its event was written counts nothing.
    await expect(
      withChangeTransaction(async (tx) => {
        const ctx = { accountId: merchant.accountId, livemode: true, actor: { type: "system" as const, id: null }, correlationId: null, now: () => new Date() };
        await emitEvent(tx, ctx, { type: "customer.updated", aggregateId: alice.id, data: {}, previousData: {} });
        throw new Error("rolled back on purpose");
      }),
    ).rejects.toThrow("rolled back on purpose");
    expect(await apiTotal({})).toBe(before);

    const [someEvent] = await sql<{ id: string; aggregate_id: string; type: EventType }[]>`
      select id, aggregate_id, type from events where account_id = ${merchant.accountId} and created < ${TO} order by id limit 1`;
    const midDay = new Date(FROM.getTime() + 1.5 * DAY + 3_600_000);
    const cases: Filters[] = [
      {},
      { event_id: someEvent!.id },
      { aggregate_id: alice.id },
      { aggregate_id: someEvent!.aggregate_id },
      { aggregate_type: "customer" },
      { event_type: "customer.created" },
      { aggregate_type: "customer", event_type: "customer.updated" },
      { aggregate_type: "invoice", event_type: "customer.updated" },
      { aggregate_id: alice.id, event_type: "customer.updated" },
      ...EVENT_TYPES.slice(0, 8).map((type) => ({ event_type: type, aggregate_type: aggregateTypeOf(type) })),
      // Ranges: whole days only, cut days at both ends, within one day, open-ended, empty.
      { gte: new Date(FROM.getTime() + DAY), lt: new Date(FROM.getTime() + 3 * DAY) },
      { gte: midDay, lt: new Date(midDay.getTime() + 2.2 * DAY) },
      { gte: midDay, lt: new Date(midDay.getTime() + 3_600_000) },
      { gte: midDay },
      { lt: midDay },
      { gte: midDay, lt: midDay },
      { gte: midDay, lt: new Date(TO.getTime() - 7_000_000), aggregate_type: "invoice" },
      { gte: new Date(FROM.getTime() + 0.3 * DAY), event_type: someEvent!.type },
      { gte: new Date(Date.now() - 3_600_000) },
    ];
    for (const filters of cases) {
      expect({ filters, total: await apiTotal(filters) }).toEqual({ filters, total: await countRows(filters) });
    }
    expect(await apiTotal({ aggregate_type: "customer", event_type: "customer.created" })).toBe(26 + (await countRows({ event_type: "customer.created", lt: TO })));
    // Rebuilding the counters from the events (after a manual repair) gives the same totals.
    const totalsBefore = await Promise.all(cases.map(apiTotal));
    await recountEvents(await getDb(), merchant.accountId);
    expect(await Promise.all(cases.map(apiTotal))).toEqual(totalsBefore);
  });
});

describe("cursor paging", () => {
  type Page = { items: { id: string; created: string }[]; total: number; has_more: boolean };
  const get = async (query: Query): Promise<Page> => {
    const response = await merchant.client.get(`/${merchant.accountId}/events${query}`);
    expect(response.status, response.text).toBe(200);
    return response.body;
  };

  it("walks the whole list under concurrent inserts with no duplicate and nothing skipped", async () => {
    const existing = new Set(
      (await sql<{ id: string }[]>`select id from events where account_id = ${merchant.accountId}`).map((row) => row.id),
    );
    let inserting = true;
    const writer = (async () => {
      for (let i = 0; inserting; i++) {
        await merchant.client.post("/customers", { email: `w${i}@example.com` });
      }
    })();
    const seen: string[] = [];
    let page = await get("?limit=100");
    seen.push(...page.items.map((item) => item.id));
    while (page.has_more) {
      page = await get(`?limit=100&starting_after=${page.items.at(-1)!.id}`);
      seen.push(...page.items.map((item) => item.id));
    }
    inserting = false;
    await writer;
    expect(new Set(seen).size).toBe(seen.length);
    // Everything there at the start is seen; anything newer is only seen if it came before the walk passed.
    for (const id of existing) expect(seen.includes(id), id).toBe(true);
    const order = await sql<{ id: string }[]>`
      select id from events where id in ${sql(seen)} order by created desc, id desc`;
    expect(order.map((row) => row.id)).toEqual(seen);
  });

  it("ending_before returns the newer neighbours, newest first, and has_more says whether even newer exist", async () => {
    const first = await get("?limit=5");
    const second = await get(`?limit=5&starting_after=${first.items.at(-1)!.id}`);
    const back = await get(`?limit=5&ending_before=${second.items[0]!.id}`);
    expect(back.items.map((item) => item.id)).toEqual(first.items.map((item) => item.id));
    expect(back.has_more).toBe(false);
    const partial = await get(`?limit=3&ending_before=${second.items[0]!.id}`);
    expect(partial.items.map((item) => item.id)).toEqual(first.items.slice(2).map((item) => item.id));
    expect(partial.has_more).toBe(true);
    expect(partial.total).toBe(first.total);
  });

  it("combines cursors with filters and created ranges", async () => {
    const range = `&event_type=invoice.paid&created[gte]=${FROM.toISOString()}&created[lt]=${TO.toISOString()}`;
    const all = await get(`?limit=100${range}`);
    expect(all.items.length).toBeGreaterThan(4);
    const next = await get(`?limit=2${range}&starting_after=${all.items[1]!.id}`);
    expect(next.items.map((item) => item.id)).toEqual(all.items.slice(2, 4).map((item) => item.id));
    expect(next.total).toBe(all.total);
  });

  it("every list shares it: customers by cursor, offset and range", async () => {
    const client = merchant.client;
    const firstTwo = (await client.get("/customers?limit=2")).body;
    const next = (await client.get(`/customers?limit=2&starting_after=${firstTwo.items[1].id}`)).body;
    const byOffset = (await client.get("/customers?limit=2&offset=2")).body;
    expect(next.items.map((c: { id: string }) => c.id)).toEqual(byOffset.items.map((c: { id: string }) => c.id));
    expect(next.total).toBe(firstTwo.total);
    const future = (await client.get(`/customers?created[gte]=${new Date(Date.now() + DAY).toISOString()}`)).body;
    expect(future).toEqual({ items: [], total: 0, has_more: false });
  });

  it("refuses an offset beyond the bound, unknown cursors and both cursors at once with a problem body", async () => {
    const client = merchant.client;
    expect((await client.get(`/${merchant.accountId}/events?offset=${OFFSET_MAX}&limit=1`)).status).toBe(200);
    const deep = await client.get(`/${merchant.accountId}/events?offset=${OFFSET_MAX + 1}`);
    expectProblem(deep, 400, /offset.*starting_after/);
    expect(deep.body.errors).toEqual([{ field: "offset", message: expect.stringMatching(/starting_after/) }]);
    expectProblem(await client.get("/customers?offset=20000"), 400, /starting_after/);
    expectProblem(await client.get(`/${merchant.accountId}/events?starting_after=evt_prod_nosuchevent`), 400, /starting_after/);
    // Another account's object is no cursor of this list.
    const other = await newMerchant();
    const foreign = (await other.client.post("/customers", { email: "other@example.com" })).body;
    const [foreignEvent] = await sql<{ id: string }[]>`select id from events where aggregate_id = ${foreign.id}`;
    expectProblem(await client.get(`/${merchant.accountId}/events?ending_before=${foreignEvent!.id}`), 400, /ending_before/);
    const some = (await client.get(`/${merchant.accountId}/events?limit=1`)).body.items[0].id;
    expectProblem(await client.get(`/${merchant.accountId}/events?starting_after=${some}&ending_before=${some}`), 400, /either/);
    expectProblem(await client.get(`/${merchant.accountId}/events?created[gte]=yesterday`), 400, /created\[gte\]/);
  });
});
