/**
 * Benchmark: time-driven transitions. One sandbox account with N monthly subscriptions (a 14-day
 * trial each, paid by a sandbox card; every tenth card declines, so dunning runs too) is advanced
 * a whole year by the test clock, which stops at every due instant and runs it there. Prints the
 * transitions run, the wall time and the rate, the events written, and what the idle sweep (what
 * the embedded ticker runs every tick) costs on that data. Prints figures only; asserts nothing.
 *
 *   npx tsx bench/test-clock.ts [--subscriptions 200]        (npm run bench:clock -- …)
 *
 * Needs the PostgreSQL server of the tests (TEST_ADMIN_DATABASE_URL). Run it from the project root.
 */
import { performance } from "node:perf_hooks";
import { count, eq } from "drizzle-orm";
import { closeDb, getDb } from "@/db/client";
import { migratePostgres } from "@/db/migrate";
import { accounts, events } from "@/db/schema";
import { advanceClock, runAllDueTransitions, systemContext } from "@/lib/clock/service";
import { createCustomer } from "@/lib/customers/service";
import { createOrganization } from "@/lib/organizations/service";
import { createPrice } from "@/lib/prices/service";
import { createProduct } from "@/lib/products/service";
import { createSubscription } from "@/lib/subscriptions/service";
import { createFreshDatabase } from "@/tests/helpers/database";
import { wire } from "@/lib/server/wiring";

// The clock runs the transitions handed to it at start-up (lib/server/wiring.ts).
wire();

const index = process.argv.indexOf("--subscriptions");
const SUBSCRIPTIONS = index < 0 ? 200 : Number(process.argv[index + 1]);
if (!Number.isInteger(SUBSCRIPTIONS) || SUBSCRIPTIONS <= 0) {
  console.error("--subscriptions needs a positive integer.");
  process.exit(1);
}
const DAY_MS = 86_400_000;

const database = await createFreshDatabase("bench_clock");
try {
  await migratePostgres(database.url);
  process.env.DATABASE_URL = database.url;
  const db = await getDb();
  const organization = await createOrganization(db, { name: "Clock bench" });
  const [account] = await db.select().from(accounts).where(eq(accounts.id, organization.sandboxAccountId));
  const ctx = systemContext(account!);

  const product = await createProduct({ ctx, input: { name: "Monthly plan" } });
  const price = await createPrice({
    ctx,
    input: { product: product.id, currency: "usd", unit_amount_atom: 2000, type: "recurring", recurring: { interval: "month", interval_count: 1 } },
  });
  const setupStart = performance.now();
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const customer = await createCustomer({ ctx, input: { email: `customer${i}@example.com` } });
    await createSubscription({
      ctx,
      input: {
        customer: customer.id,
        items: [{ price: price.id }],
        trial_period_days: 14,
        default_payment_method: i % 10 === 9 ? "pm_sandbox_declined" : "pm_sandbox_succeeds",
      },
    });
  }
  const setupMs = performance.now() - setupStart;
  const eventsBefore = (await db.select({ n: count() }).from(events).where(eq(events.accountId, account!.id)))[0]!.n;

  const idle = [];
  for (let i = 0; i < 20; i++) {
    const start = performance.now();
    await runAllDueTransitions();
    idle.push(performance.now() - start);
  }
  idle.sort((a, b) => a - b);

  const start = performance.now();
  const clock = await advanceClock({ ctx, input: { to: new Date(ctx.now().getTime() + 365 * DAY_MS) } });
  const advanceMs = performance.now() - start;
  const eventsAfter = (await db.select({ n: count() }).from(events).where(eq(events.accountId, account!.id)))[0]!.n;

  console.log(`subscriptions                 ${SUBSCRIPTIONS} (14-day trial, monthly; 10 % declining cards)`);
  console.log(`setup                         ${(setupMs / 1000).toFixed(1)} s (${(setupMs / SUBSCRIPTIONS).toFixed(1)} ms per customer + subscription)`);
  console.log(`idle sweep (nothing due)      p50 ${idle[10]!.toFixed(2)} ms, max ${idle.at(-1)!.toFixed(2)} ms`);
  console.log(`advance one year              ${(advanceMs / 1000).toFixed(1)} s`);
  console.log(`transitions run               ${clock.transitionsRun} (${((clock.transitionsRun / advanceMs) * 1000).toFixed(0)} per second, ${(advanceMs / clock.transitionsRun).toFixed(1)} ms each)`);
  console.log(`events written by the advance ${eventsAfter - eventsBefore}`);
} finally {
  await closeDb();
  await database.drop();
}
