import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { createOrganization } from "@/lib/organizations/service";
import { EVENT_EXAMPLES } from "@/lib/events-api/payloads";
import { createMigratedDatabase } from "../helpers/database";
import { checkPostgresEvents, finishEventCheck, startEventCheck } from "../helpers/event-check";

/**
 * The central event check fails a run with a readable list: an event whose state is not its
 * type's, stored in a real database, is named with its type, id and Ajv's errors; a synthetic row
 * is skipped; a valid one passes.
 */
let database: Awaited<ReturnType<typeof createMigratedDatabase>>;

// In a whole `vitest run` this worker inherits the run's own ledger: this test's deliberately
// invalid events go to a ledger of its own, and its database is dropped before the run's returns.
const RUN_LEDGER = ["EVENT_CHECK_LEDGER", "EVENT_CHECK_USERS", "EVENT_CHECK_SUITES"] as const;
const runLedger = Object.fromEntries(RUN_LEDGER.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  for (const name of RUN_LEDGER) delete process.env[name];
  database = await createMigratedDatabase("event_check");
  const client = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const db = drizzle(client) as unknown as Database;
    const { liveAccountId } = await createOrganization(db, { name: "Event check" });
    const valid = EVENT_EXAMPLES["customer.created"]!.event as { data: object };
    const insert = (id: string, type: string, aggregate: string, data: object, metadata: object = {}) =>
      client`insert into events (id, account_id, type, aggregate_type, aggregate_id, data, metadata, version, sequence)
        values (${id}, ${liveAccountId}, ${type}, ${aggregate}, ${`agg_${id}`}, ${JSON.stringify(data)}::jsonb, ${JSON.stringify(metadata)}::jsonb, 1, 1)`;
    await insert("evt_valid", "customer.created", "customer", valid.data);
    await insert("evt_not_an_invoice", "invoice.paid", "invoice", valid.data);
    await insert("evt_synthetic", "invoice.paid", "invoice", {}, { synthetic: true });
  } finally {
    await client.end();
  }
}, 120_000);

afterAll(async () => {
  await database.drop();
  for (const name of RUN_LEDGER) if (runLedger[name] !== undefined) process.env[name] = runLedger[name];
});

describe("the central event check", () => {
  it("lists the invalid event by type and id with Ajv's errors, skipping synthetic rows", { timeout: 120_000 }, async () => {
    startEventCheck();
    await checkPostgresEvents(database.url);
    let message = "";
    try {
      finishEventCheck("unit");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/2 events of 1 databases validated .*\(1 synthetic rows skipped\): 2 invalid/);
    expect(message).toContain("invoice.paid evt_not_an_invoice (as webhook");
    expect(message).toContain("invoice.paid evt_not_an_invoice (as event");
    expect(message).toMatch(/must have required property 'total_amount_atom'|must be equal to constant/);
    expect(message).not.toContain("evt_valid");
    expect(message).not.toContain("evt_synthetic");
  });
});
