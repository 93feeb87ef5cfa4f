/**
 * `npm run bench:request-log:insert -- [--rows 40000] [--batch 50] [--rounds 3]`
 *
 * What writing the request log costs the app's process per row: the writer's statement (the batch
 * as one JSON parameter, `jsonb_to_recordset`, lib/request-recorder/writer.ts) against drizzle's
 * multi-row VALUES (21 bound parameters a row), alternately on one connection to a fresh database.
 * Node CPU per row is what the requests being logged lose; wall time per row includes PostgreSQL.
 */
import "./limits";
import { drizzle } from "drizzle-orm/postgres-js";
import { requestLogs } from "@/db/schema";
import { newId } from "@/lib/ids";
import { ensurePartitions, utcDay } from "@/lib/request-recorder/partitions";
import { insertBatch, type RequestLogInsert } from "@/lib/request-recorder/writer";
import { benchDatabase, log, option } from "./http";

const ROWS = Number(option("rows", "40000"));
const BATCH = Number(option("batch", "50"));
const ROUNDS = Number(option("rounds", "3"));

/** A logged `GET /api/customers/{id}`, as lib/request-recorder/record.ts builds it. */
function row(): RequestLogInsert {
  return {
    id: newId("request"),
    created: new Date(),
    accountId: "acct_bench",
    livemode: true,
    tokenId: "key_prod_bench",
    userId: null,
    method: "GET",
    operationId: "getCustomer",
    path: "/api/customers/cus_prod_0123456789",
    query: null,
    status: 200,
    statusClass: 2,
    errorCode: null,
    durationMs: 3,
    clientAddress: "127.0.0.1",
    userAgent: "autocannon",
    idempotencyKey: null,
    idempotentReplayed: false,
    requestHeaders: { accept: "*/*", "user-agent": "autocannon" },
    requestBody: null,
    responseBody: null,
  };
}

async function main(): Promise<void> {
  const { sql, cleanUp } = await benchDatabase("bench_request_log_insert");
  try {
    const db = drizzle(sql);
    await ensurePartitions(db, [utcDay(new Date())]);
    const ways: [string, (batch: RequestLogInsert[]) => Promise<unknown>][] = [
      ["multi-row VALUES", (batch) => db.insert(requestLogs).values(batch)],
      ["jsonb_to_recordset (the writer)", (batch) => db.execute(insertBatch(batch))],
    ];
    console.log(`Request log insert, ${ROWS.toLocaleString("en")} rows in batches of ${BATCH}, ${ROUNDS} alternating rounds`);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, write] of ways) {
        const cpu = process.cpuUsage();
        const started = performance.now();
        for (let i = 0; i < ROWS / BATCH; i++) await write(Array.from({ length: BATCH }, row));
        const wallUs = ((performance.now() - started) * 1000) / ROWS;
        const used = process.cpuUsage(cpu);
        log(`round ${round} ${name.padEnd(32)} node CPU ${((used.user + used.system) / ROWS).toFixed(1).padStart(6)} µs/row   wall ${wallUs.toFixed(1).padStart(6)} µs/row`);
      }
    }
  } finally {
    await cleanUp();
  }
}

await main();
