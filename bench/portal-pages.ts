/**
 * Benchmark: the customer portal's pages, over HTTP against `next start` (run `npm run build` first).
 *
 *   npm run bench:portal -- [--customers 10000] [--seconds 10] [--connections 4]
 *
 * Loads `--customers` synthetic customers in the account (the portal's reads are by customer, so
 * they are the neighbours), then makes, through the API, one customer with three subscriptions,
 * each with its first invoice, and a portal session for them; measures each page with the
 * session's cookie at `--connections` for `--seconds`, beside the floor (GET /api/health) of the
 * same run, and prints the 1-minute load average (the machine is shared). Prints figures only;
 * asserts nothing. Uses a fresh database (dropped at the end).
 */
import "./limits";
import { benchAccounts, benchDatabase, benchEnvironment, latencyRows, option } from "./http";
import { loadSyntheticObjects } from "@/db/synthetic-objects";
import { newId } from "@/lib/ids";
import { startApp } from "@/tests/helpers/server";

const CUSTOMERS = Number(option("customers", "10000").replaceAll("_", ""));
const SECONDS = Number(option("seconds", "10"));
const CONNECTIONS = Number(option("connections", "4"));
const MAIN = newId("account");
const NOISE = newId("account");

async function main(): Promise<void> {
  benchEnvironment();
  const { url, sql, closeLater, cleanUp } = await benchDatabase("bench_portal");
  try {
    const { token } = await benchAccounts(sql, MAIN, NOISE);
    const to = new Date(Date.now() - 86_400_000);
    await loadSyntheticObjects(sql, { accountId: MAIN, kind: "customers", count: CUSTOMERS, from: new Date(to.getTime() - 365 * 86_400_000), to });
    await sql`vacuum analyze`;
    const app = await startApp({ DATABASE_URL: url });
    closeLater(() => app.stop());
    const base = app.baseUrl;
    const call = async (path: string, body: unknown) => {
      const response = await fetch(`${base}/api/${MAIN}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { id: string; url: string };
    };
    const product = await call("/products", { name: "Pro" });
    const prices: string[] = [];
    for (const amount of [1000, 3000]) {
      prices.push((await call("/prices", { product: product.id, currency: "usd", unit_amount_atom: amount, type: "recurring", recurring: { interval: "month" } })).id);
    }
    await call("/portal-configuration", { features: { subscription_update: { enabled: true, prices, quantity: { enabled: true } } } });
    const customer = await call("/customers", { email: "bench-portal@example.com" });
    const subscriptions: string[] = [];
    for (let i = 0; i < 3; i++) subscriptions.push((await call("/subscriptions", { customer: customer.id, items: [{ price: prices[i % 2] }] })).id);
    const session = await call("/portal-sessions", { customer: customer.id });
    const opened = await fetch(session.url, { redirect: "manual" });
    const cookie = opened.headers.get("set-cookie")?.split(";")[0];
    if (!cookie) throw new Error(`the link did not open: ${opened.status}`);
    console.log(
      `Portal pages benchmark, ${new Date().toISOString()}: ${CUSTOMERS.toLocaleString("en")} customers, one with 3 subscriptions; ${CONNECTIONS} connections, ${SECONDS} s per row.`,
    );
    const rows: [string, () => string, string | { cookie: string }][] = [
      ["floor: GET /api/health", () => "/api/health", token],
      ["GET /portal", () => "/portal", { cookie }],
      ["GET /portal/invoices", () => "/portal/invoices", { cookie }],
      ["GET /portal/details", () => "/portal/details", { cookie }],
      ["GET /portal/subscriptions/{id}/change", () => `/portal/subscriptions/${subscriptions[0]}/change`, { cookie }],
    ];
    await latencyRows(base, rows, { connections: CONNECTIONS, seconds: SECONDS });
  } finally {
    await cleanUp();
  }
}

await main();
