import { type AccountPath } from "../helpers/api";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { and, count, gte, lt } from "drizzle-orm";
import { LIST_DECLARATIONS, shownRows, type ListDeclaration, type ListName } from "@/db/list-declarations";
import { triggerParts, type TriggerParts } from "@/db/list-triggers";
import { compactListCounts } from "@/db/list-totals";
import { loadSyntheticObjects, type SyntheticKind } from "@/db/synthetic-objects";
import { drizzle } from "drizzle-orm/postgres-js";
import { listApiTokens } from "@/lib/api-tokens/service";
import { newMerchant, type Merchant } from "../helpers/merchant";

// The totals of every list but the events' (kept by migration 0020's triggers, db/list-totals.ts)
// against count(*): every filter, created ranges cut anywhere, after real API changes, synthetic
// loads, concurrent writers, a rollback, and with the deltas folded in or not.

let merchant: Merchant;
let sql: postgres.Sql;
let endpointId = "";
const DAY = 86_400_000;
/** Synthetic objects over five whole UTC days, so that ranges cross day buckets and cut days. */
const FROM = new Date(Date.UTC(2026, 5, 1));
const TO = new Date(FROM.getTime() + 5 * DAY);
const MID = new Date(FROM.getTime() + 1.5 * DAY + 3_600_000);

type WithoutSlash<P> = P extends `/${infer Rest}` ? Rest : never;
/**
 * A list: its API path, its declaration (db/list-declarations.ts: the rows it shows, as its
 * service selects them, and its filters' columns) and the values of its filters tried here.
 */
type ListCase = {
  /** The API path; null for a list only the dashboard reads (its service is called here). */
  path: () => WithoutSlash<AccountPath<"get">> | null;
  list: ListName;
  /** Whose rows: the account's, or the endpoint's. */
  scopeId: () => string;
  filters: Record<string, () => (string | boolean)[]>;
};

const ofAccount = () => merchant.accountId;
const statusValues = (...values: string[]) => () => values;
/** A parent filter's values: a few parents that have rows in the list (and one that has none). */
const parentsOf = (table: string, column: string) => () => parentSamples.get(`${table}.${column}`) ?? [];
const parentSamples = new Map<string, string[]>();

const LISTS: Record<string, ListCase> = {
  customers: { path: () => "customers", list: "customers", scopeId: ofAccount, filters: {} },
  products: { path: () => "products", list: "products", scopeId: ofAccount, filters: { active: () => [true, false] } },
  prices: {
    path: () => "prices",
    list: "prices",
    scopeId: ofAccount,
    filters: { active: () => [true, false], type: () => ["recurring", "one_time"], product: parentsOf("prices", "product_id") },
  },
  coupons: { path: () => "coupons", list: "coupons", scopeId: ofAccount, filters: {} },
  invoices: {
    path: () => "invoices",
    list: "invoices",
    scopeId: ofAccount,
    filters: { status: statusValues("draft", "open", "paid", "void", "uncollectible"), customer: parentsOf("invoices", "customer_id") },
  },
  subscriptions: {
    path: () => "subscriptions",
    list: "subscriptions",
    scopeId: ofAccount,
    filters: { status: statusValues("trialing", "active", "past_due", "paused", "cancelled"), customer: parentsOf("subscriptions", "customer_id") },
  },
  payment_intents: {
    path: () => "payment-intents",
    list: "payment_intents",
    scopeId: ofAccount,
    filters: { status: statusValues("succeeded", "requires_payment_method", "canceled"), customer: parentsOf("payment_intents", "customer_id") },
  },
  payments: { path: () => "payments", list: "payments", scopeId: ofAccount, filters: { payment_intent: parentsOf("payments", "payment_intent_id") } },
  refunds: { path: () => "refunds", list: "refunds", scopeId: ofAccount, filters: { payment: parentsOf("refunds", "payment_id") } },
  checkout_sessions: {
    path: () => "checkout/sessions",
    list: "checkout_sessions",
    scopeId: ofAccount,
    filters: { status: statusValues("open", "complete", "expired"), customer: parentsOf("checkout_sessions", "customer_id") },
  },
  webhook_endpoints: { path: () => "webhook-endpoints", list: "webhook_endpoints", scopeId: ofAccount, filters: {} },
  // Tokens are listed by the dashboard only (a token cannot list tokens).
  api_tokens: { path: () => null, list: "api_tokens", scopeId: ofAccount, filters: {} },
  deliveries: {
    path: () => `webhook-endpoints/${endpointId}/deliveries`,
    list: "event_deliveries",
    scopeId: () => endpointId,
    filters: { status: statusValues("pending", "delivering", "delivered", "failed") },
  },
};

const RANGES: { gte?: Date; lt?: Date }[] = [
  {},
  { gte: new Date(FROM.getTime() + DAY), lt: new Date(FROM.getTime() + 3 * DAY) }, // whole days
  { gte: MID, lt: new Date(MID.getTime() + 2.2 * DAY) }, // cut days at both ends
  { gte: MID, lt: new Date(MID.getTime() + 3_600_000) }, // within one day
  { gte: MID }, // open-ended
  { lt: MID },
  { gte: MID, lt: MID }, // empty
  { gte: new Date(Date.now() - 3_600_000) }, // the objects made by this test's API calls
];

/** Every combination of at most two filters (with each of their values) and every range. */
function casesOf(list: ListCase): { query: Record<string, string | boolean>; range: { gte?: Date; lt?: Date } }[] {
  const single = Object.entries(list.filters).flatMap(([name, values]) => values().map((value) => ({ [name]: value })));
  const pairs = single.flatMap((a, i) => single.slice(i + 1).filter((b) => Object.keys(a)[0] !== Object.keys(b)[0]).map((b) => ({ ...a, ...b })));
  const queries: Record<string, string | boolean>[] = [{}, ...single, ...pairs];
  return queries.flatMap((query) => RANGES.map((range) => ({ query, range })));
}

async function apiTotal(list: ListCase, query: Record<string, string | boolean>, range: { gte?: Date; lt?: Date }, offset = 0): Promise<number> {
  const path = list.path();
  if (path === null) {
    const ctx = { accountId: merchant.accountId, livemode: true, actor: { type: "system" as const, id: null }, correlationId: null, now: () => new Date() };
    return (await listApiTokens({ ctx, input: { limit: 1, offset, "created[gte]": range.gte, "created[lt]": range.lt } })).total;
  }
  const params = new URLSearchParams({ limit: "1", offset: String(offset) });
  for (const [name, value] of Object.entries(query)) params.set(name, String(value));
  if (range.gte) params.set("created[gte]", range.gte.toISOString());
  if (range.lt) params.set("created[lt]", range.lt.toISOString());
  const response = await merchant.client.get(`/${merchant.accountId}/${path}?${params.toString()}`);
  expect(response.status, response.text).toBe(200);
  return response.body.total;
}

/**
 * count(*) of the rows the list shows, with its service's own filter (the declaration the
 * triggers are generated from), against which the triggers' totals are checked.
 */
async function countRows(list: ListCase, query: Record<string, string | boolean>, range: { gte?: Date; lt?: Date }): Promise<number> {
  const declaration: ListDeclaration = LIST_DECLARATIONS[list.list];
  const [row] = await drizzle(sql)
    .select({ n: count() })
    .from(declaration.table)
    .where(
      and(
        shownRows(declaration, list.scopeId(), query),
        range.gte ? gte(declaration.table.created, range.gte) : undefined,
        range.lt ? lt(declaration.table.created, range.lt) : undefined,
      ),
    );
  return row!.n;
}

/** Every list, filter and range: the API's total against count(*). */
async function expectExactTotals(): Promise<number> {
  let checked = 0;
  for (const [name, list] of Object.entries(LISTS)) {
    for (const { query, range } of casesOf(list)) {
      const expected = { list: name, query, range, total: await countRows(list, query, range) };
      expect({ ...expected, total: await apiTotal(list, query, range) }).toEqual(expected);
      checked += 1;
    }
  }
  return checked;
}

beforeAll(async () => {
  merchant = await newMerchant();
  sql = postgres(inject("databaseUrl"), { max: 4, onnotice: () => {} });
  const client = merchant.client;
  const post = async (path: AccountPath<"post">, body: unknown = {}) => {
    const response = await client.post(`/${merchant.accountId}${path}`, body);
    expect(response.status, response.text).toBeLessThan(300);
    return response.body;
  };
  // An endpoint subscribed to a type nothing here emits: its deliveries are the synthetic ones.
  endpointId = (await post("/webhook-endpoints", { url: "https://127.0.0.1:9/hook", events: ["coupon.deleted"] })).id;
  await post("/webhook-endpoints", { url: "https://127.0.0.1:9/other", events: ["coupon.deleted"] });
  const kinds: SyntheticKind[] = ["customers", "products", "prices", "coupons", "invoices", "subscriptions", "payment_intents", "payments", "refunds", "checkout_sessions", "event_deliveries"];
  for (const kind of kinds) {
    await loadSyntheticObjects(sql, { accountId: merchant.accountId, kind, count: 400, from: FROM, to: TO, endpointId, batch: 150 });
  }
  for (const [key, table, column] of [
    ["prices.product_id", "prices", "product_id"],
    ["invoices.customer_id", "invoices", "customer_id"],
    ["subscriptions.customer_id", "subscriptions", "customer_id"],
    ["payment_intents.customer_id", "payment_intents", "customer_id"],
    ["payments.payment_intent_id", "payments", "payment_intent_id"],
    ["refunds.payment_id", "refunds", "payment_id"],
    ["checkout_sessions.customer_id", "checkout_sessions", "customer_id"],
  ] as const) {
    const rows = await sql.unsafe<{ v: string }[]>(`select distinct ${column} as v from ${table} where account_id = '${merchant.accountId}' and ${column} is not null order by 1 limit 2`);
    parentSamples.set(key, rows.map((row) => row.v));
  }

  // Real changes through the API: creates, updates that move rows between totals, deletes.
  const alice = await post("/customers", { email: "alice@example.com" });
  const bob = await post("/customers", { email: "bob@example.com" });
  expect((await client.delete(`/${merchant.accountId}/customers/${bob.id}`)).status).toBe(200);
  const product = await post("/products", { name: "Pro" });
  const archived = await post("/products", { name: "Old" });
  await post(`/products/${archived.id}`, { active: false });
  const price = await post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 2000, type: "recurring", recurring: { interval: "month" } });
  const once = await post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 500, type: "one_time" });
  await post(`/prices/${once.id}`, { active: false });
  const subscription = await post("/subscriptions", { customer: alice.id, items: [{ price: price.id }] });
  await post(`/subscriptions/${subscription.id}/cancel`, {});
  const oneTime = await post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 700, type: "one_time" });
  const invoice = await post("/invoices", { customer: alice.id, currency: "usd", lines: [{ price: oneTime.id }] });
  await post(`/invoices/${invoice.id}/finalize`, {});
  await post(`/invoices/${invoice.id}/void`, {});
  parentSamples.get("invoices.customer_id")!.push(alice.id);
  parentSamples.get("subscriptions.customer_id")!.push(alice.id);
  const coupon = await post("/coupons", { percent_off: 10, duration: "once" });
  expect((await client.delete(`/${merchant.accountId}/coupons/${coupon.id}`)).status).toBe(200);
  // A delivery moving through the driver's states, as the claim and the record move it.
  await sql`update event_deliveries set status = 'delivering' where id in (
    select id from event_deliveries where webhook_endpoint_id = ${endpointId} and status = 'failed' order by id limit 3)`;
  await sql`update event_deliveries set status = 'pending' where id in (
    select id from event_deliveries where webhook_endpoint_id = ${endpointId} and status = 'delivered' order by id limit 5)`;
}, 120_000);

afterAll(async () => {
  await sql.end({ timeout: 5 });
});

describe("list totals", () => {
  it("are kept by trigger functions and triggers made of the declarations the services filter with (pg_proc, pg_trigger)", async () => {
    const inDatabase = async (list: string) => {
      const functions = await sql<{ body: string }[]>`select prosrc as body from pg_proc where proname = ${`count_${list}`}`;
      const triggers = await sql<{ name: string }[]>`
        select tgname as name from pg_trigger where tgfoid in (select oid from pg_proc where proname = ${`count_${list}`}) order by 1`;
      return { bodies: functions.map((row) => row.body), triggers: triggers.map((row) => row.name) };
    };
    /** Whether the database's function counts the declared rows under the declared keys in each of its four selects. */
    const madeOf = (parts: TriggerParts, found: Awaited<ReturnType<typeof inDatabase>>) => {
      const [body = ""] = found.bodies;
      const selects = body.split(`unnest(${parts.keys}) as key where ${parts.shown}`).length - 1;
      const triggers = ["delete", "insert", ...(parts.moves ? ["update"] : [])].map((op) => `count_${parts.list}_${op}`);
      return (
        found.bodies.length === 1 &&
        selects === 4 &&
        body.includes(`select ${parts.scope}, '${parts.list}', key, ${parts.day}, count(*)::int`) &&
        JSON.stringify(found.triggers) === JSON.stringify(triggers)
      );
    };
    for (const [list, declaration] of Object.entries(LIST_DECLARATIONS)) {
      const found = await inDatabase(list);
      expect({ list, made: madeOf(triggerParts(list, declaration), found), found }).toMatchObject({ list, made: true });
    }
    // A service's filter changed alone (customers counting the deleted too, prices without type
    // totals) would not match the database's triggers.
    const countingDeleted: ListDeclaration = { ...LIST_DECLARATIONS.customers, shown: undefined };
    expect(madeOf(triggerParts("customers", countingDeleted), await inDatabase("customers"))).toBe(false);
    const withoutType: ListDeclaration = { ...LIST_DECLARATIONS.prices, keys: { active: LIST_DECLARATIONS.prices.keys.active } };
    expect(madeOf(triggerParts("prices", withoutType), await inDatabase("prices"))).toBe(false);
  });

  it("equal count(*) for every list, filter and created range, with deltas pending and after they are folded in", async () => {
    expect(await expectExactTotals()).toBeGreaterThan(500);
    // Fold every pending delta in (the server's compactor may have done part of it already).
    await compactListCounts(drizzle(sql));
    expect(await expectExactTotals()).toBeGreaterThan(500);
  }, 120_000);

  it("are the same on deep offset pages as on the first", async () => {
    for (const list of [LISTS.invoices!, LISTS.deliveries!]) {
      for (const range of [{}, { gte: MID }]) {
        expect(await apiTotal(list, {}, range, 300)).toBe(await countRows(list, {}, range));
      }
    }
  });

  it("stay exact under concurrent writers and compactions, and a rolled-back transaction counts nothing", async () => {
    const client = merchant.client;
    const list = LISTS.customers!;
    // 24 creates, 8 deletes and 8 compactions at once on one account.
    const doomed = await Promise.all(Array.from({ length: 8 }, (_, i) => client.post(`/${merchant.accountId}/customers`, { email: `doomed${i}@example.com` })));
    const results = await Promise.all([
      ...Array.from({ length: 24 }, (_, i) => client.post(`/${merchant.accountId}/customers`, { email: `c${i}@example.com` })),
      ...doomed.map((created) => client.delete(`/${merchant.accountId}/customers/${created.body.id}`)),
      ...Array.from({ length: 8 }, () => compactListCounts(drizzle(sql)).then(() => ({ status: 0 }))),
    ]);
    expect(results.map((response) => response.status).sort()).toEqual([...Array(8).fill(0), ...Array(8).fill(200), ...Array(24).fill(201)]);
    expect(await apiTotal(list, {}, {})).toBe(await countRows(list, {}, {}));

    const before = await apiTotal(list, {}, {});
    const invoicesBefore = await apiTotal(LISTS.invoices!, { status: "paid" }, {});
    await expect(
      sql.begin(async (tx) => {
        await tx`insert into customers (id, account_id, email) values (${`cus_test_rollback${Date.now()}`}, ${merchant.accountId}, 'gone@example.com')`;
        await tx`update invoices set status = 'paid' where account_id = ${merchant.accountId} and status = 'open'`;
        throw new Error("rolled back on purpose");
      }),
    ).rejects.toThrow("rolled back on purpose");
    expect(await apiTotal(list, {}, {})).toBe(before);
    expect(await apiTotal(LISTS.invoices!, { status: "paid" }, {})).toBe(invoicesBefore);
    expect(await expectExactTotals()).toBeGreaterThan(500);
  }, 120_000);

  it("are folded in by the compaction, which leaves no delta behind", async () => {
    // Counted inside the writing transaction, where no compaction can see (or fold) them yet.
    await sql.begin(async (tx) => {
      await tx`update subscriptions set status = 'paused' where account_id = ${merchant.accountId} and status = 'active'`;
      const [mine] = await tx<{ n: number }[]>`select count(*)::int as n from list_count_deltas where scope_id = ${merchant.accountId}`;
      expect(mine!.n).toBeGreaterThan(0);
    });
    await compactListCounts(drizzle(sql));
    // Other test files write meanwhile: none of this account's deltas may be left.
    const [left] = await sql<{ n: number }[]>`select count(*)::int as n from list_count_deltas where scope_id = ${merchant.accountId}`;
    expect(left!.n).toBe(0);
    expect(await apiTotal(LISTS.subscriptions!, { status: "paused" }, {})).toBe(await countRows(LISTS.subscriptions!, { status: "paused" }, {}));
  });

  it("are folded in by the server's own compactor within seconds (LIST_COUNT_COMPACTION_MS)", async () => {
    const created = await merchant.client.post(`/${merchant.accountId}/customers`, { email: "folded@example.com" });
    expect(created.status).toBe(201);
    const mine = async () => (await sql<{ n: number }[]>`select count(*)::int as n from list_count_deltas where scope_id = ${merchant.accountId}`)[0]!.n;
    const deadline = Date.now() + 10_000;
    while ((await mine()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await mine()).toBe(0);
    expect(await apiTotal(LISTS.customers!, {}, {})).toBe(await countRows(LISTS.customers!, {}, {}));
  });
});
