import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiRoot, type Client, type Json } from "../helpers/api";
import { isolatedDatabase } from "../helpers/isolated-database";
import { startApp, type RunningApp } from "../helpers/server";

/*
 * USAGE_EVENT_RETENTION_DAYS (docs/usage-billing.md, "Retention"): the app that ingests drops, in
 * the background, the monthly partitions of raw usage events older than the retention and than
 * every live subscription's open period; the hourly aggregates stay, so summaries of dropped months
 * still answer. On a database of its own: retention acts on every account's partitions.
 */

const month = (year: number, m: number) => `${year}${String(m).padStart(2, "0")}`;

describe("usage event retention", () => {
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let app: RunningApp;
  let sql: postgres.Sql;
  let client: Client;

  beforeAll(async () => {
    database = await isolatedDatabase("usage_retention");
    sql = postgres(database.url, { max: 1, onnotice: () => {} });
    app = await startApp({ DATABASE_URL: database.url, USAGE_EVENT_RETENTION_DAYS: "400" });
    client = api(database.token, apiRoot(app.baseUrl));
  });
  afterAll(async () => {
    await app?.stop();
    await sql?.end();
    await database?.drop();
  });

  const partitions = async () =>
    (
      await sql<{ name: string }[]>`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        join pg_class p on p.oid = i.inhparent where p.relname = 'usage_events' order by 1`
    ).map((row) => row.name);

  /** A month's partition with two events of the customer on its 10th, their identifiers and their hour's aggregate. */
  async function oldMonth(accountId: string, meterId: string, customerId: string, year: number, m: number) {
    const key = month(year, m);
    const from = new Date(Date.UTC(year, m - 1, 1)).toISOString();
    const to = new Date(Date.UTC(year, m, 1)).toISOString();
    await sql.unsafe(`create table if not exists "usage_events_${key}" partition of usage_events for values from ('${from}') to ('${to}')`);
    const hour = new Date(Date.UTC(year, m - 1, 10, 10));
    for (const [minute, value] of [[15, 5], [45, 7]] as const) {
      const ts = new Date(hour.getTime() + minute * 60_000);
      const identifier = `old_${key}_${minute}`;
      await sql`insert into usage_event_keys (account_id, identifier, body_hash, ts, received) values (${accountId}, ${identifier}, 'h', ${ts}, ${ts})`;
      await sql`insert into usage_events (account_id, identifier, meter_id, customer_id, ts, value, payload, received)
        values (${accountId}, ${identifier}, ${meterId}, ${customerId}, ${ts}, ${value}, '{}', ${ts})`;
    }
    await sql`insert into usage_hourly (account_id, meter_id, customer_id, hour, sum_value, event_count, max_value, last_ts, last_value)
      values (${accountId}, ${meterId}, ${customerId}, ${hour}, 12, 2, 7, ${new Date(hour.getTime() + 45 * 60_000)}, 7)`;
    return `usage_events_${key}`;
  }

  it("drops partitions past the retention and every open period, keeps the rest, and old summaries still read", { timeout: 90_000 }, async () => {
    const accountId = database.accountId;
    const ok = async (response: Promise<{ status: number; body: Json; text: string }>) => {
      const settled = await response;
      expect([200, 201], settled.text).toContain(settled.status);
      return settled.body;
    };
    const customer = await ok(client.post("/customers", { email: "retention@example.com" }));
    const meter = await ok(client.post("/meters", { event_name: "retained", display_name: "Retained", aggregation: "sum" }));
    const product = await ok(client.post("/products", { name: "Plan" }));
    const price = await ok(client.post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 100, type: "recurring", recurring: { interval: "month" } }));
    const subscription = await ok(client.post("/subscriptions", { customer: customer.id, items: [{ price: price.id }] }));

    const now = new Date();
    const recent = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 1));
    const ancient = await oldMonth(accountId, meter.id, customer.id, 2000, 1);
    const beforeOpen = await oldMonth(accountId, meter.id, customer.id, 2001, 2);
    const open = await oldMonth(accountId, meter.id, customer.id, 2001, 3);
    const kept = await oldMonth(accountId, meter.id, customer.id, recent.getUTCFullYear(), recent.getUTCMonth() + 1);
    // A live subscription whose open period began in March 2001: its events may still be invoiced.
    await sql`update subscriptions set current_period_start = '2001-03-15T00:00:00Z' where id = ${subscription.id}`;

    const summary = async (year: number, m: number) =>
      (
        await ok(
          client.get(
            `/meters/${meter.id}/summaries?customer=${customer.id}&start=${new Date(Date.UTC(year, m - 1, 10)).toISOString()}&end=${new Date(Date.UTC(year, m - 1, 11)).toISOString()}&group_by=day`,
          ),
        )
      ).items.map((item: Json) => item.value);
    expect(await summary(2000, 1)).toEqual([12]);

    // The first ingestion of the process maintains the partitions, off the request's path.
    const answer = await ok(client.post("/usage-events", { event_name: "retained", customer: customer.id, identifier: "now", payload: { value: 3 } }));
    expect(answer.status).toBe("accepted");
    const gone = async () => !(await partitions()).some((name) => name === ancient || name === beforeOpen);
    for (let waited = 0; !(await gone()) && waited < 60_000; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const left = await partitions();
    expect(left).not.toContain(ancient);
    expect(left).not.toContain(beforeOpen);
    expect(left).toContain(open);
    expect(left).toContain(kept);
    expect(left).toContain(`usage_events_${month(now.getUTCFullYear(), now.getUTCMonth() + 1)}`);
    // Their identifiers went with them; the others stay.
    const identifiers = (await sql<{ identifier: string }[]>`select identifier from usage_event_keys where account_id = ${accountId} order by 1`).map(
      (row) => row.identifier,
    );
    expect(identifiers.filter((id) => id.startsWith("old_200001") || id.startsWith("old_200102"))).toEqual([]);
    expect(identifiers).toEqual(expect.arrayContaining(["old_200103_15", `old_${month(recent.getUTCFullYear(), recent.getUTCMonth() + 1)}_15`, "now"]));

    // The hourly aggregates outlive the raw events: the dropped months' summaries are unchanged.
    expect(await summary(2000, 1)).toEqual([12]);
    expect(await summary(2001, 2)).toEqual([12]);
    expect((await ok(client.get(`/meters/${meter.id}/usage-events?customer=${customer.id}&limit=100`))).items.map((e: Json) => e.identifier)).not.toContain(
      "old_200001_15",
    );
  });
});
