import { beforeAll, describe, expect, it } from "vitest";
import { api, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

const HOUR = 3_600_000;
const nowSeconds = () => Math.floor(Date.now() / 1000);

let merchant: Merchant;
beforeAll(async () => {
  merchant = await newMerchant();
});

async function meter(m: Merchant, body: Json): Promise<Json> {
  const created = await m.client.post("/meters", body);
  expect(created.status, created.text).toBe(201);
  return created.body;
}

async function eventsOf(m: Merchant, aggregateId: string): Promise<string[]> {
  const page = (await m.client.get(`/${m.accountId}/events?aggregate_id=${aggregateId}`)).body;
  return page.items.map((e: Json) => e.type).reverse();
}

describe("meters", () => {
  it("creates, lists, updates, deactivates and reactivates; one event per change", async () => {
    const fresh = await newMerchant();
    const created = await meter(fresh, { event_name: "tokens", display_name: "Tokens", aggregation: "sum" });
    expect(created).toEqual({
      id: expect.stringMatching(/^mtr_prod_[0-9a-z]{29}$/),
      object: "meter",
      event_name: "tokens",
      display_name: "Tokens",
      aggregation: "sum",
      value_key: "value",
      status: "active",
      livemode: true,
      created: expect.any(String),
      updated: expect.any(String),
    });
    expect((await fresh.client.get(`/meters/${created.id}`)).body).toEqual(created);
    const list = (await fresh.client.get("/meters")).body;
    expect(list).toMatchObject({ total: 1, has_more: false, items: [{ id: created.id }] });

    const renamed = await fresh.client.post(`/meters/${created.id}`, { display_name: "LLM tokens" });
    expect(renamed.body.display_name).toBe("LLM tokens");
    // No change, no event.
    await fresh.client.post(`/meters/${created.id}`, { display_name: "LLM tokens" });
    expect((await fresh.client.post(`/meters/${created.id}/deactivate`)).body.status).toBe("inactive");
    await fresh.client.post(`/meters/${created.id}/deactivate`);
    // The name is free while it is inactive; reactivating it then conflicts.
    const other = await meter(fresh, { event_name: "tokens", display_name: "Other", aggregation: "count" });
    const refused = await fresh.client.post(`/meters/${created.id}/reactivate`);
    expectProblem(refused, 409, /already counts event_name 'tokens'/);
    expect(refused.body.error_code).toBe("meter_event_name_taken");
    await fresh.client.post(`/meters/${other.id}/deactivate`);
    expect((await fresh.client.post(`/meters/${created.id}/reactivate`)).body.status).toBe("active");
    expect(await eventsOf(fresh, created.id)).toEqual(["meter.created", "meter.updated", "meter.deactivated", "meter.reactivated"]);
  });

  it.each([
    [{ display_name: "x", aggregation: "sum" }, 400],
    [{ event_name: "has space", display_name: "x", aggregation: "sum" }, 422],
    [{ event_name: "a", display_name: "x", aggregation: "median" }, 422],
    [{ event_name: "a", display_name: "", aggregation: "sum" }, 422],
  ])("refuses a bad create %j with %i, creating nothing", async (body, status) => {
    const fresh = await newMerchant();
    expectProblem(await fresh.client.post("/meters", body), status);
    expect((await fresh.client.get("/meters")).body.total).toBe(0);
  });

  it("keeps aggregation and keys immutable (422), a second active event_name 409, unknown ids 404", async () => {
    const fresh = await newMerchant();
    const created = await meter(fresh, { event_name: "seats", display_name: "Seats", aggregation: "max", value_key: "n" });
    for (const field of ["aggregation", "event_name", "value_key"]) {
      expectProblem(await fresh.client.post(`/meters/${created.id}`, { [field]: "sum" }), 422, /cannot change/);
    }
    expectProblem(await fresh.client.post("/meters", { event_name: "seats", display_name: "Again", aggregation: "sum" }), 409);
    expectProblem(await fresh.client.get("/meters/mtr_prod_00000000000000000000000000000"), 404);
    expectProblem(await merchant.client.get(`/meters/${created.id}`), 404);
  });
});

describe("usage ingestion", () => {
  it("accepts once, answers duplicate for the same body and 409 for another; reads the sum", async () => {
    const fresh = await newMerchant();
    const cus = (await fresh.client.post("/customers", { email: "a@example.com" })).body.id;
    const m = await meter(fresh, { event_name: "api_call", display_name: "Calls", aggregation: "sum" });
    const event = { event_name: "api_call", customer: cus, identifier: "e-1", payload: { value: 7 } };
    expect((await fresh.client.post("/usage-events", event)).body).toEqual({ identifier: "e-1", status: "accepted" });
    expect((await fresh.client.post("/usage-events", event)).body).toEqual({ identifier: "e-1", status: "duplicate" });
    const conflict = await fresh.client.post("/usage-events", { ...event, payload: { value: 8 } });
    expectProblem(conflict, 409);
    expect(conflict.body.error_code).toBe("usage_event_conflict");
    await fresh.client.post("/usage-events", { ...event, identifier: "e-2", payload: { value: "5" } });
    const usage = (await fresh.client.get(`/customers/${cus}/usage?meter=${m.id}`)).body;
    expect(usage).toMatchObject({ object: "customer_usage", meter: m.id, customer: cus, aggregation: "sum", value: 12 });
  });

  it.each([
    ["unknown_event_name", { event_name: "nope" }],
    ["unknown_customer", { customer: "cus_prod_00000000000000000000000000000" }],
    ["invalid_value", { payload: { value: -1 } }],
    ["invalid_value", { payload: { value: 1.5 } }],
    ["invalid_value", { payload: {} }],
    ["timestamp_in_future", { timestamp: nowSeconds() + 600 }],
    ["timestamp_too_old", { timestamp: nowSeconds() - 2 * 3600 }],
  ])("answers 422 %s for one event, and invalid with that reason in a batch", async (code, change) => {
    const fresh = await newMerchant();
    const cus = (await fresh.client.post("/customers", { email: "b@example.com" })).body.id;
    const m = await meter(fresh, { event_name: "bytes", display_name: "Bytes", aggregation: "sum" });
    const base = { event_name: "bytes", customer: cus, identifier: "x", payload: { value: 1 } };
    const single = await fresh.client.post("/usage-events", { ...base, ...change });
    expectProblem(single, 422);
    expect(single.body.error_code).toBe(code);
    const batch = await fresh.client.post("/usage-events/batch", {
      events: [{ ...base, identifier: "ok-1" }, { ...base, ...change, identifier: "bad" }, { ...base, identifier: "ok-2" }],
    });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.items).toEqual([
      { identifier: "ok-1", status: "accepted" },
      { identifier: "bad", status: "invalid", error: { code, message: expect.any(String) } },
      { identifier: "ok-2", status: "accepted" },
    ]);
    expect((await fresh.client.get(`/customers/${cus}/usage?meter=${m.id}`)).body.value).toBe(2);
  });

  it("answers a batch per item: malformed items, in-batch repeats and conflicts never reject the others", async () => {
    const fresh = await newMerchant();
    const cus = (await fresh.client.post("/customers", { email: "c@example.com" })).body.id;
    const m = await meter(fresh, { event_name: "req", display_name: "Req", aggregation: "count" });
    await fresh.client.post("/usage-events", { event_name: "req", customer: cus, identifier: "old", payload: { a: 1 } });
    const e = (identifier: string, payload: Json = {}) => ({ event_name: "req", customer: cus, identifier, payload });
    const batch = await fresh.client.post("/usage-events/batch", {
      events: [e("n1"), { customer: cus }, e("n1"), e("n1", { b: 2 }), e("old", { a: 1 }), e("old", { a: 2 }), e("n2")],
    });
    expect(batch.body.items.map((r: Json) => [r.identifier, r.status, r.error?.code])).toEqual([
      ["n1", "accepted", undefined],
      [null, "invalid", "invalid_event"],
      ["n1", "duplicate", undefined],
      ["n1", "invalid", "usage_event_conflict"],
      ["old", "duplicate", undefined],
      ["old", "invalid", "usage_event_conflict"],
      ["n2", "accepted", undefined],
    ]);
    expect((await fresh.client.get(`/customers/${cus}/usage?meter=${m.id}`)).body.value).toBe(3);
    expectProblem(await fresh.client.post("/usage-events/batch", { events: [] }), 422);
  });

  it("refuses a publishable token (403) and changes nothing", async () => {
    const fresh = await newMerchant();
    const cus = (await fresh.client.post("/customers", { email: "d@example.com" })).body.id;
    const m = await meter(fresh, { event_name: "p", display_name: "P", aggregation: "count" });
    const browser = api(fresh.publishable.token);
    expectProblem(await browser.post("/usage-events", { event_name: "p", customer: cus, identifier: "1" }), 403);
    expectProblem(await browser.post("/usage-events/batch", { events: [{ event_name: "p", customer: cus, identifier: "1" }] }), 403);
    expect((await fresh.client.get(`/customers/${cus}/usage?meter=${m.id}`)).body.value).toBe(0);
  });

  it("accepts the same identifier from 8 connections at once exactly once", async () => {
    const fresh = await newMerchant();
    const cus = (await fresh.client.post("/customers", { email: "e@example.com" })).body.id;
    const m = await meter(fresh, { event_name: "race", display_name: "Race", aggregation: "sum" });
    const body = { event_name: "race", customer: cus, identifier: "same", payload: { value: 10 } };
    const clients = Array.from({ length: 8 }, () => api(fresh.secret.token));
    const answers = await Promise.all(clients.map((c) => c.post("/usage-events", body)));
    const statuses = answers.map((a) => a.body.status).sort();
    expect(statuses).toEqual(["accepted", ...Array(7).fill("duplicate")]);
    expect((await fresh.client.get(`/customers/${cus}/usage?meter=${m.id}`)).body.value).toBe(10);
  });
});

describe("aggregations, cancellation and summaries", () => {
  it("counts max, last and unique_count, cancels an event out of usage, and buckets by hour and day", async () => {
    const fresh = await newMerchant();
    const cus = (await fresh.client.post("/customers", { email: "f@example.com" })).body.id;
    const max = await meter(fresh, { event_name: "mem", display_name: "Memory", aggregation: "max" });
    const last = await meter(fresh, { event_name: "seats", display_name: "Seats", aggregation: "last", value_key: "n" });
    const users = await meter(fresh, { event_name: "login", display_name: "Users", aggregation: "unique_count", value_key: "user" });
    const t0 = nowSeconds() - 60;
    const send = (events: Json[]) => fresh.client.post("/usage-events/batch", { events: events.map((e) => ({ customer: cus, ...e })) });
    await send([
      { event_name: "mem", identifier: "m1", timestamp: t0, payload: { value: 5 } },
      { event_name: "mem", identifier: "m2", timestamp: t0 + 1, payload: { value: 9 } },
      { event_name: "seats", identifier: "s2", timestamp: t0 + 5, payload: { n: 4 } },
      { event_name: "seats", identifier: "s1", timestamp: t0, payload: { n: 3 } },
      { event_name: "login", identifier: "l1", payload: { user: "ann" } },
      { event_name: "login", identifier: "l2", payload: { user: "bob" } },
      { event_name: "login", identifier: "l3", payload: { user: "ann" } },
    ]);
    const usage = async (id: string) => (await fresh.client.get(`/customers/${cus}/usage?meter=${id}`)).body.value;
    expect([await usage(max.id), await usage(last.id), await usage(users.id)]).toEqual([9, 4, 2]);

    const cancelled = await fresh.client.post("/usage-events/m2/cancel");
    expect(cancelled.body).toMatchObject({ object: "usage_event", identifier: "m2", meter: max.id, customer: cus, timestamp: t0 + 1 });
    expect((await fresh.client.post("/usage-events/m2/cancel")).body.cancelled).toBe(cancelled.body.cancelled);
    await fresh.client.post("/usage-events/s2/cancel");
    await fresh.client.post("/usage-events/l2/cancel");
    expect([await usage(max.id), await usage(last.id), await usage(users.id)]).toEqual([5, 3, 1]);
    expectProblem(await fresh.client.post("/usage-events/nope/cancel"), 404);

    // The buckets of the kept event's own time (t0), not of now: a run a minute past midnight or an
    // hour's turn has t0 in the bucket before now's.
    const hour = Math.floor((t0 * 1000) / HOUR) * HOUR;
    const day = Math.floor((t0 * 1000) / (24 * HOUR)) * 24 * HOUR;
    const q = (group: string, from: number, to: number): `/meters/${string}/summaries?${string}` =>
      `/meters/${max.id}/summaries?customer=${cus}&group_by=${group}&start=${new Date(from).toISOString()}&end=${new Date(to).toISOString()}`;
    const byDay = (await fresh.client.get(q("day", day - 24 * HOUR, day + 24 * HOUR))).body;
    expect(byDay.items.map((b: Json) => b.value)).toEqual([null, 5]);
    const byHour = (await fresh.client.get(q("hour", hour - 2 * HOUR, hour + HOUR))).body;
    expect(byHour.items).toHaveLength(3);
    expect(byHour.items.map((b: Json) => b.value).filter((v: unknown) => v !== null)).toEqual([5]);
    expectProblem(await fresh.client.get(q("day", day + 5, day + 24 * HOUR)), 422);
  });
});
