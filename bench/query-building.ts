import { and, desc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { customers, events, invoiceLines, invoices, subscriptions } from "@/db/schema";

/**
 * `npm run bench:query-building [-- <builds>]`: the CPU drizzle-orm spends turning a query builder
 * into its SQL text and parameters (what every statement of the app and the test workers pays
 * before it is sent), over shapes the verbs use: a whole-row select with a where, an update with
 * returning, an insert of a whole row, a join. Prints the CPU per build (µs, over 20,000 builds by
 * default, after 2,000 to warm up) of each shape. Nothing is sent: the client never connects.
 */
const client = postgres("postgres://nobody@127.0.0.1:1/none", { max: 1 });
const db = drizzle(client);
const now = new Date("2026-12-04T00:00:00Z");

const shapes: Record<string, () => { sql: string; params: unknown[] }> = {
  "select a whole invoice by id and account": () =>
    db.select().from(invoices).where(and(eq(invoices.accountId, "acc_test_1"), eq(invoices.id, "in_test_1"))).for("update").toSQL(),
  "select a customer's lines, ordered": () =>
    db.select().from(invoiceLines).where(inArray(invoiceLines.invoiceId, ["in_1", "in_2", "in_3"])).orderBy(invoiceLines.id).toSQL(),
  "update an invoice, returning it": () =>
    db.update(invoices).set({ status: "open", updated: now, dueAmountAtom: 1200 }).where(eq(invoices.id, "in_test_1")).returning().toSQL(),
  "insert a customer, returning it": () =>
    db.insert(customers).values({ id: "cus_1", accountId: "acc_test_1", email: "a@example.com", created: now, updated: now }).returning().toSQL(),
  "join subscriptions to customers": () =>
    db.select({ subscription: subscriptions, email: customers.email }).from(subscriptions).innerJoin(customers, eq(customers.id, subscriptions.customerId))
      .where(and(eq(subscriptions.accountId, "acc_test_1"), isNull(subscriptions.cancelledAt), gt(subscriptions.created, now))).orderBy(desc(subscriptions.created)).limit(10).toSQL(),
  "events page, raw sql fragment": () =>
    db.select({ id: events.id, type: events.type }).from(events).where(sql`${events.accountId} = ${"acc_test_1"} and ${events.created} < ${now}`).limit(100).toSQL(),
};

const ROUNDS = Number(process.argv[2] ?? 20_000);
for (const [name, build] of Object.entries(shapes)) {
  for (let i = 0; i < 2_000; i++) build(); // warm up
  const start = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i++) build();
  const used = process.cpuUsage(start);
  console.log(`${((used.user + used.system) / ROUNDS).toFixed(2).padStart(7)} µs  ${name}  (${build().sql.length} chars)`);
}
await client.end();
