/**
 * Benchmark: `GET /api/customers/{id}/entitlements` at 100,000 customers in one account, over HTTP
 * against `next start` (run `npm run build` first).
 *
 *   npm run bench:entitlements -- [--customers 100000] [--seconds 10]
 *
 * Loads `--customers` synthetic customers (and 10 % as many in a second account as noise), each
 * with one subscription (statuses cycling trialing, active, past_due, paused, cancelled) to one of
 * two products carrying 3 and 2 features, then `vacuum analyze`, then measures at 16 connections
 * for `--seconds` the entitlements of random customers, beside two floors of the same run (GET
 * /api/health, and GET /api/customers/{id}: an authenticated one-row read), and prints the
 * 1-minute load average (the machine is shared). Prints figures only; asserts nothing. Uses a
 * fresh database (dropped at the end).
 */
import "./limits";
import { performance } from "node:perf_hooks";
import { benchAccounts, benchDatabase, benchEnvironment, elapsed, latencyRows, log, option, seeded } from "./http";
import { loadSyntheticObjects } from "@/db/synthetic-objects";
import { newId } from "@/lib/ids";
import { startApp } from "@/tests/helpers/server";

const CUSTOMERS = Number(option("customers", "100000").replaceAll("_", ""));
const SECONDS = Number(option("seconds", "10"));
const MAIN = newId("account");
const NOISE = newId("account");
const { random } = seeded(24);

async function main(): Promise<void> {
  benchEnvironment();
  const { url, sql, closeLater, cleanUp } = await benchDatabase("bench_entitlements");
  try {
    const { token } = await benchAccounts(sql, MAIN, NOISE);
    console.log(`Entitlements benchmark, ${new Date().toISOString()}: ${CUSTOMERS.toLocaleString("en")} customers (+10 % noise); 16 connections, ${SECONDS} s per row.`);
    const started = performance.now();
    const to = new Date(Date.now() - 86_400_000);
    const from = new Date(to.getTime() - 365 * 86_400_000);
    await loadSyntheticObjects(sql, { accountId: MAIN, kind: "customers", count: CUSTOMERS, from, to });
    await loadSyntheticObjects(sql, { accountId: NOISE, kind: "customers", count: CUSTOMERS / 10, from, to });
    const products = [newId("product"), newId("product")];
    const prices = [newId("price"), newId("price")];
    for (const [i, product] of products.entries()) {
      await sql`insert into products (id, account_id, name) values (${product}, ${MAIN}, ${`Plan ${i}`})`;
      await sql`insert into prices (id, account_id, product_id, currency, unit_amount_atom, type, recurring_interval, recurring_interval_count)
        values (${prices[i]!}, ${MAIN}, ${product}, 'usd', ${1000 * (i + 1)}, 'recurring', 'month', 1)`;
    }
    for (let f = 0; f < 5; f++) {
      const feature = newId("feature");
      await sql`insert into features (id, account_id, lookup_key, name) values (${feature}, ${MAIN}, ${`feature_${f}`}, ${`Feature ${f}`})`;
      await sql`insert into product_features (id, account_id, product_id, feature_id) values (${newId("productFeature")}, ${MAIN}, ${products[f < 3 ? 0 : 1]!}, ${feature})`;
    }
    const prefix = newId("subscription").slice(0, -12);
    await sql`insert into subscriptions (id, account_id, customer_id, status, currency, current_period_start, current_period_end, past_due_since)
      select ${prefix} || lpad(n::text, 12, '0'), ${MAIN}, c.id,
        (array['trialing','active','past_due','paused','cancelled'])[1 + n % 5]::subscription_status, 'usd', now(), now() + interval '30 days',
        case when n % 5 = 2 then now() - (n % 10) * interval '1 day' end
      from (select id, row_number() over (order by id) as n from customers where account_id = ${MAIN}) c`;
    await sql`insert into subscription_items (id, subscription_id, price_id, quantity)
      select replace(s.id, 'sub_', 'si_'), s.id, (array[${prices[0]!}, ${prices[1]!}])[1 + (right(s.id, 12)::bigint % 2)::int], 1
      from subscriptions s where s.account_id = ${MAIN}`;
    await sql`vacuum analyze`;
    const ids = (await sql<{ id: string }[]>`select id from customers where account_id = ${MAIN}`).map((row) => row.id);
    log(`loaded and vacuumed in ${elapsed(started)}`);
    const app = await startApp({ DATABASE_URL: url });
    closeLater(() => app.stop());
    const base = app.baseUrl;
    const pick = () => ids[Math.floor(random() * ids.length)]!;
    const rows: [string, () => string, string][] = [
      ["floor: GET /api/health", () => "/api/health", token],
      // An authenticated read of one row: the token, the request log and one query, as entitlements pay.
      ["authenticated floor: GET /api/customers/{id}", () => `/api/${MAIN}/customers/${pick()}`, token],
      ["GET /api/customers/{id}/entitlements", () => `/api/${MAIN}/customers/${pick()}/entitlements`, token],
    ];
    await latencyRows(base, rows, { connections: 16, seconds: SECONDS });
  } finally {
    await cleanUp();
  }
}

await main();
