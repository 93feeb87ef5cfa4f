/**
 * Benchmark: what `sequence` (lib/events/sequence.ts) costs an event's transaction.
 *
 * On a fresh PostgreSQL database, measures one-event transactions in three shapes, interleaved in
 * rounds so that whatever else loads the machine hits all of them alike:
 *   floor     insert the event with a precomputed sequence (what emitting cost before);
 *   sequence  nextSequence() (the counter upsert) + the same insert, each on its own aggregate;
 *   hot       the same, 8 concurrent writers on ONE aggregate (they queue on its counter row).
 * Prints p50/p95 per transaction and throughput. Prints figures only.
 *
 *   npx tsx bench/event-sequence.ts [--events 2000]   (npm run bench:sequence -- …)
 */
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { closeDb, getDb } from "@/db/client";
import { migratePostgres } from "@/db/migrate";
import { accounts, events, organizations } from "@/db/schema";
import { nextSequence } from "@/lib/events/sequence";
import { newId } from "@/lib/ids";
import { createFreshDatabase } from "@/tests/helpers/database";

const index = process.argv.indexOf("--events");
const EVENTS = index > 0 ? Number(process.argv[index + 1]) : 2000;
const ROUNDS = 10;
const HOT_WRITERS = 8;

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2);
  return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms`;
}

async function main() {
  const database = await createFreshDatabase("bench_sequence");
  try {
    await migratePostgres(database.url);
    process.env.DATABASE_URL = database.url;
    const db = await getDb();
    await db.insert(organizations).values({ id: "org_bench", name: "Bench" });
    await db.insert(accounts).values({ id: "acc_bench", organizationId: "org_bench", name: "Bench", livemode: true });
    const row = (aggregateId: string, sequence: number) => ({
      id: newId("event"),
      accountId: "acc_bench",
      type: "customer.updated",
      aggregateType: "customer",
      aggregateId,
      data: { id: aggregateId, name: "Bench" },
      previousData: null,
      metadata: {},
      correlationId: null,
      version: 1,
      sequence,
      created: new Date(),
      actorType: "system" as const,
      actorId: null,
    });
    const floor: number[] = [];
    const sequenced: number[] = [];
    const hot: number[] = [];
    let hotMs = 0;
    const perRound = Math.ceil(EVENTS / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < perRound; i++) {
        let started = performance.now();
        await db.transaction(async (tx) => {
          await tx.insert(events).values(row(`cus_floor_${round}_${i}`, 1));
        });
        floor.push(performance.now() - started);
        started = performance.now();
        await db.transaction(async (tx) => {
          const aggregateId = `cus_seq_${round}_${i}`;
          await tx.insert(events).values(row(aggregateId, await nextSequence(tx, "acc_bench", aggregateId)));
        });
        sequenced.push(performance.now() - started);
      }
      const hotStarted = performance.now();
      await Promise.all(
        Array.from({ length: HOT_WRITERS }, async () => {
          for (let i = 0; i < perRound / HOT_WRITERS; i++) {
            const started = performance.now();
            await db.transaction(async (tx) => {
              await tx.insert(events).values(row("cus_hot", await nextSequence(tx, "acc_bench", "cus_hot")));
            });
            hot.push(performance.now() - started);
          }
        }),
      );
      hotMs += performance.now() - hotStarted;
    }
    const [check] = await db
      .select({ n: sql<number>`count(*)::int`, max: sql<number>`max(${events.sequence})::int` })
      .from(events)
      .where(sql`${events.aggregateId} = 'cus_hot'`);
    console.log(`events per shape: ${floor.length} (hot: ${hot.length}, ${HOT_WRITERS} writers on one aggregate)`);
    console.log(`floor (insert only):          ${stats(floor)}`);
    console.log(`with nextSequence:            ${stats(sequenced)}`);
    console.log(`hot aggregate, ${HOT_WRITERS} writers:     ${stats(hot)}, ${((hot.length / hotMs) * 1000).toFixed(0)} events/s`);
    console.log(`hot aggregate check: ${check!.n} events, max sequence ${check!.max} (equal = no gap, no duplicate)`);
  } finally {
    await closeDb();
    await database.drop();
  }
}

void main();
