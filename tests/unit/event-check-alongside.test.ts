import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import * as schema from "@/db/schema";
import { renderInvoicePdf, sha256Hex } from "@/lib/invoices/pdf/render";
import { createOrganization } from "@/lib/organizations/service";
import { EVENT_EXAMPLES } from "@/lib/events-api/payloads";
import { createMigratedDatabase, type TestDatabase } from "../helpers/database";
import { finishEventCheck, startEventCheck } from "../helpers/event-check";
import { startEventCheckAlongside } from "../helpers/event-check-alongside";

/**
 * The check that reads a database while its tests write it (tests/helpers/event-check-alongside.ts,
 * the api project's shared database): what it reports at the end is what the check at the drop
 * would, whenever its passes fall. Rows written before a pass and after it are each read; an event
 * is counted once; an invoice written again after it was checked (here: its recorded hash changed
 * to one no render gives) is checked again, and counted once.
 */
let database: TestDatabase;
let client: postgres.Sql;
let db: Database;
let account: string;

// In a whole `vitest run` this worker inherits the run's own ledger: this file's deliberately
// invalid rows go to a ledger of its own.
const RUN_LEDGER = ["EVENT_CHECK_LEDGER", "EVENT_CHECK_USERS", "EVENT_CHECK_SUITES"] as const;
const runLedger = Object.fromEntries(RUN_LEDGER.map((name) => [name, process.env[name]]));

const VALID = (EVENT_EXAMPLES["customer.created"]!.event as { data: object }).data;

beforeAll(async () => {
  for (const name of RUN_LEDGER) delete process.env[name];
  startEventCheck();
  database = await createMigratedDatabase("event_check_alongside", { checkedAlongTheRun: true });
  client = postgres(database.url, { max: 1, onnotice: () => {} });
  db = drizzle(client) as unknown as Database;
  ({ sandboxAccountId: account } = await createOrganization(db, { name: "Alongside" }));
  await client`insert into customers (id, account_id, email) values ('cus_alongside', ${account}, 'buyer@example.com')`;
}, 120_000);

afterAll(async () => {
  await client?.end({ timeout: 5 });
  await database?.drop();
  for (const name of RUN_LEDGER) {
    if (runLedger[name] === undefined) delete process.env[name];
    else process.env[name] = runLedger[name];
  }
});

/** Writes rows in one transaction and returns its id (32-bit, as a row's `xmin`). */
async function write(rows: (sql: postgres.TransactionSql) => Promise<unknown>): Promise<number> {
  return client.begin(async (sql) => {
    await rows(sql);
    const [row] = await sql<{ xid: string }[]>`select (pg_current_xact_id()::text::bigint % 4294967296)::text as xid`;
    return Number(row!.xid);
  });
}

const insertEvent = (sql: postgres.TransactionSql, id: string, type: string, data: object) =>
  sql`insert into events (id, account_id, type, aggregate_type, aggregate_id, data, metadata, version, sequence)
    values (${id}, ${account}, ${type}, ${type.split(".")[0]!}, ${`agg_${id}`}, ${JSON.stringify(data)}::jsonb, '{}'::jsonb, 1, 1)`;

/** A finalized invoice (one of no lines, nothing owed) whose recorded hash is its PDF's own. */
async function insertInvoice(id: string): Promise<void> {
  const document = {
    locale: "en",
    seller: { name: "Alongside", address: null, tax_id: null, email: null },
    buyer: { name: null, email: "buyer@example.com", address: null, tax_ids: [] },
    lines: [],
    tax_rates: [],
    footer: null,
  };
  await client`insert into invoices (id, account_id, customer_id, status, currency, number, finalized_at, document, pdf_sha256)
    values (${id}, ${account}, 'cus_alongside', 'open', 'usd', ${id.toUpperCase()}, '2026-03-01T00:00:00Z', ${JSON.stringify(document)}::jsonb, ${"0".repeat(64)})`;
  const [invoice] = await db.select().from(schema.invoices).where(eq(schema.invoices.id, id));
  const hash = sha256Hex(await renderInvoicePdf(invoice!, [], invoice!.document!));
  await client`update invoices set pdf_sha256 = ${hash} where id = ${id}`;
}

describe("the event and PDF check beside the run (tests/helpers/event-check-alongside.ts)", () => {
  it("reads the rows written before and after each pass, an invoice again once written again, and reports what the check at the drop would", { timeout: 120_000 }, async () => {
    await insertInvoice("in_alongside_a");
    const before = await write(async (sql) => {
      await insertEvent(sql, "evt_before_valid", "customer.created", VALID);
      await insertEvent(sql, "evt_before_invalid", "invoice.paid", VALID);
    });
    const checker = startEventCheckAlongside(database.url, { EVENT_CHECK_ALONGSIDE_PASS_MS: "100" });
    await checker.passedBeyond(before);

    // After a pass: a new invalid event, a new invoice, and the first invoice's hash made wrong.
    await write(async (sql) => {
      await insertEvent(sql, "evt_after_invalid", "customer.created", {});
      await sql`update invoices set pdf_sha256 = ${"f".repeat(64)} where id = 'in_alongside_a'`;
    });
    await insertInvoice("in_alongside_b");
    await checker.finish();

    let message = "";
    try {
      finishEventCheck("unit");
    } catch (error) {
      message = (error as Error).message;
    }
    // Each event once: three validated, not the first pass's two again.
    expect(message).toMatch(/^unit: 3 events of 1 databases validated .*: 5 invalid; 2 finalized invoices' PDFs checked in [0-9.]+ s .*2 of 2 in 1 databases checked whole/);
    expect(message).toContain("invoice.paid evt_before_invalid (as webhook");
    expect(message).toContain("invoice.paid evt_before_invalid (as event");
    expect(message).toContain("customer.created evt_after_invalid (as webhook");
    expect(message).toContain("customer.created evt_after_invalid (as event");
    // Valid when first checked, wrong once written again: caught by a later pass, listed once.
    expect(message.match(/invoice PDF in_alongside_a .*pdf_sha256 recorded at finalization/g)).toHaveLength(1);
    expect(message).not.toContain("in_alongside_b");
    expect(message).not.toContain("evt_before_valid");
  });
});
