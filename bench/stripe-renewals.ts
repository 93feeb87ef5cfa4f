/**
 * Benchmark: renewals charged off-session through Stripe (issue #36), on the built app
 * (`npm run build` first), against the tests' Stripe stand-in answering every request after
 * `--latency` ms (Stripe's own latency; default 150).
 *
 * A sandbox account connected to Stripe test keys has `--subscriptions` (default 1,000) monthly
 * subscriptions, each of its own customer, with a card saved for that customer as
 * `default_payment_method`, and one `trial_end` for all: 1,000 renewals due at one instant, as
 * the clock's sweep finds them when they fall due together (lib/clock/due.ts runs different
 * customers' side by side). With `--spread` they have no trial and renew at their own period ends,
 * milliseconds apart: the test clock then stops at each, one renewal per stop. One test-clock
 * advance past the trial end (or the period ends) renews them all; the figure is the wall time from the advance until
 * every renewal invoice is paid, beside the floor of that many charges sent one after another
 * (count × latency). Checked, not timed: every renewal invoice paid once, exactly one charge at
 * Stripe per renewal, none twice.
 *
 *   npx tsx bench/stripe-renewals.ts [--subscriptions 1000] [--latency 150] [--spread]   (npm run bench:stripe-renewals -- …)
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { request } from "undici";
import { pool } from "./pool";
import { withStripeBenchApp } from "./stripe-app";
import { stripeStandInClient } from "@/tests/helpers/stripe-stand-in";

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index < 0 ? fallback : Number(process.argv[index + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} needs a non-negative integer.`);
  return value;
}

const count = option("subscriptions", 1000);
const latencyMs = option("latency", 150);
const spread = process.argv.includes("--spread");

const env = {
  CLOCK_TICK_MS: "1000",
  // Set to compare: DATABASE_POOL_SIZE=3 leaves the clock one lane (serial renewals).
  ...(process.env.DATABASE_POOL_SIZE ? { DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE } : {}),
};
await withStripeBenchApp("bench_stripe_renewals", env, async ({ app, stripe, sql, account, token }) => {
  const standIn = stripeStandInClient(stripe.url);
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${app.baseUrl}/api${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await response.json()) as Record<string, unknown> & { id: string };
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  await api("PUT", "/payment-processor", { processor: "stripe", secret_key: "sk_test_bench_renewals", publishable_key: "pk_test_bench_renewals" });
  const product = await api("POST", "/products", { name: "Plan" });
  const price = await api("POST", "/prices", { product: product.id, currency: "usd", unit_amount_atom: 1900, type: "recurring", recurring: { interval: "month" } });
  let periodEnd = "";
  // Every subscription's trial ends, and it renews, at this instant (10 days on, a whole second):
  // its trial_will_end and invoice.upcoming fall due together 3 days before, also run by the advance.
  const trialEnd = new Date(Date.now() + 10 * 86_400_000);
  trialEnd.setUTCMilliseconds(0);
  const setUp = performance.now();
  await pool(Array.from({ length: count }, (_, i) => i), 16, async (i) => {
    const customer = await api("POST", "/customers", { email: `renewal-${i}@example.com` });
    const method = await api("POST", `/customers/${customer.id}/payment-methods`, { processor_payment_method: "pm_card_visa" });
    const subscription = await api("POST", "/subscriptions", {
      customer: customer.id,
      items: [{ price: price.id }],
      default_payment_method: method.id,
      ...(spread ? {} : { trial_end: trialEnd.toISOString() }),
    });
    if (String(subscription.current_period_end) > periodEnd) periodEnd = String(subscription.current_period_end);
  });
  console.log(`set up ${count} subscriptions with saved Stripe cards (${spread ? "each renewing at its own period end" : `one trial end for all, ${trialEnd.toISOString()}`}) in ${((performance.now() - setUp) / 1000).toFixed(1)} s`);

  await standIn.latency(latencyMs);
  const paidRenewals = async () =>
    Number((await sql`select count(*)::int as n from invoices where account_id = ${account} and attempt_count = 1 and status = 'paid'`)[0]!.n);
  const started = performance.now();
  // The advance answers once every renewal is made: past fetch's 300 s headers timeout on a loaded machine, so without one.
  const advance = await request(`${app.baseUrl}/api/test-clock/advance`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ to: new Date(Date.parse(periodEnd) + 86_400_000).toISOString() }),
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const clock = (await advance.body.json()) as { transitions_run?: number };
  if (advance.statusCode !== 200) throw new Error(`advance: ${advance.statusCode} ${JSON.stringify(clock)}`);
  const advanced = (performance.now() - started) / 1000;
  let paid = 0;
  while ((paid = await paidRenewals()) < count) {
    if (performance.now() - started > 30 * 60_000) throw new Error(`only ${paid} of ${count} renewals paid after 30 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const wall = (performance.now() - started) / 1000;
  const load = loadavg();

  const twice = await sql`select invoice_id from payment_intents where account_id = ${account} and status = 'succeeded' and invoice_id is not null group by invoice_id having count(*) > 1`;
  const renewalIntents = await sql`select pi.id from payment_intents pi join invoices i on i.id = pi.invoice_id where i.account_id = ${account} and i.attempt_count = 1`;
  const ours = new Set(renewalIntents.map((row) => row.id as string));
  const atStripe = (await standIn.state()).paymentIntents.filter((intent) => ours.has(intent.metadata.payment_intent!) && intent.status === "succeeded");
  const perIntent = new Map<string, number>();
  for (const intent of atStripe) perIntent.set(intent.metadata.payment_intent!, (perIntent.get(intent.metadata.payment_intent!) ?? 0) + 1);
  const doubleAtStripe = [...perIntent.values()].filter((n) => n > 1).length;

  const serialFloor = (count * latencyMs) / 1000;
  console.log(`renewals: ${count}, Stripe latency ${latencyMs} ms`);
  console.log(`  clock advance (${clock.transitions_run} transitions) answered in ${advanced.toFixed(1)} s; all renewal invoices paid ${wall.toFixed(1)} s after it (${(count / wall).toFixed(1)} renewals/s)`);
  console.log(`  serial floor (one charge after another): ${serialFloor.toFixed(1)} s; ratio ${(serialFloor / wall).toFixed(2)}×`);
  console.log(`  succeeded charges at Stripe: ${atStripe.length} for ${ours.size} renewal intents; intents charged twice: ${doubleAtStripe}; invoices paid twice: ${twice.length}`);
  console.log(`  load average after: ${load.map((l) => l.toFixed(2)).join(" ")}`);
  if (twice.length > 0 || doubleAtStripe > 0 || atStripe.length !== count) {
    throw new Error("a renewal was charged twice, or not at all");
  }
});
