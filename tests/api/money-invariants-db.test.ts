import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type Client, type Json } from "../helpers/api";
import { ADMIN_DATABASE_URL } from "../helpers/database";
import { newMerchant } from "../helpers/merchant";

/*
 * The database refuses what breaks the money invariants, whatever code writes it (migration 0035;
 * issue 42, rule 6): Σ issued credit notes ≤ the invoice's total, amount due ≥ 0.
 */

let sandbox: Client;
let sql: postgres.Sql;

beforeAll(async () => {
  sandbox = api((await newMerchant()).sandboxSecret.token);
  sql = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
});

afterAll(async () => {
  await sql.end({ timeout: 5 });
});

/** An open invoice of 1000: a credit note of 400 issued then voided, one of 700 issued (300 due). */
async function creditedInvoice(): Promise<{ invoice: Json; voided: Json; issued: Json }> {
  const owner = (await sandbox.post("/customers", { email: "invariants@example.com" })).body;
  const draft = (await sandbox.post("/invoices", { customer: owner.id, currency: "usd", lines: [{ unit_amount_atom: 1000, description: "Plan" }] })).body;
  const invoice = (await sandbox.post(`/invoices/${draft.id}/finalize`)).body;
  const voided = (await sandbox.post("/credit-notes", { invoice: invoice.id, amount_atom: 400, reason: "order_change" })).body;
  expect((await sandbox.post(`/credit-notes/${voided.id}/void`)).status).toBe(200);
  const issued = (await sandbox.post("/credit-notes", { invoice: invoice.id, amount_atom: 700, reason: "order_change" })).body;
  expect(issued.status).toBe("issued");
  const after = (await sandbox.get(`/invoices/${invoice.id}`)).body;
  expect(after).toMatchObject({ status: "open", total_amount_atom: 1000, due_amount_atom: 300, pre_payment_credit_notes_amount_atom: 700 });
  return { invoice: after, voided, issued };
}

/** The statement is refused by the named constraint (a check violation), and so changes nothing. */
async function refusedBy(statement: (tx: postgres.TransactionSql) => Promise<unknown>, constraint: string): Promise<void> {
  const error = await sql.begin(statement).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toMatchObject({ code: "23514", constraint_name: constraint });
}

const copyOf = (tx: postgres.TransactionSql, noteId: string, changes: Record<string, string | number>) =>
  tx`insert into credit_notes
     select (jsonb_populate_record(null::credit_notes, to_jsonb(c) || ${sql.json(changes)}::jsonb)).* from credit_notes c where c.id = ${noteId}`;

describe("the database's money invariants", () => {
  it("refuses an amount due below 0, credit note sums above the total, and credit notes whose sum exceeds the total", async () => {
    const { invoice, voided, issued } = await creditedInvoice();
    const before = (await sandbox.get(`/invoices/${invoice.id}`)).body;

    await refusedBy((tx) => tx`update invoices set due_amount_atom = -1 where id = ${invoice.id}`, "invoices_due_amount_non_negative");
    await refusedBy((tx) => tx`update invoices set pre_payment_credit_notes_amount_atom = 1001 where id = ${invoice.id}`, "invoices_credit_notes_within_total");
    await refusedBy((tx) => tx`update invoices set post_payment_credit_notes_amount_atom = 301 where id = ${invoice.id}`, "invoices_credit_notes_within_total");
    // The credit notes' own rows, which the invoice's columns do not see: 700 + 400 > 1000.
    await refusedBy((tx) => tx`update credit_notes set status = 'issued', voided_at = null where id = ${voided.id}`, "credit_notes_within_invoice_total");
    await refusedBy((tx) => copyOf(tx, issued.id, { id: `${issued.id}x`, number_sequence: 900_001, total_amount_atom: 301 }), "credit_notes_within_invoice_total");
    await refusedBy((tx) => tx`update credit_notes set total_amount_atom = 1001 where id = ${issued.id}`, "credit_notes_within_invoice_total");
    // Lowering the total below what is credited: the invoice's columns (700 > 600) or, were they
    // not kept, the trigger on the invoice's total.
    await refusedBy((tx) => tx`update invoices set total_amount_atom = 600 where id = ${invoice.id}`, "invoices_credit_notes_within_total");
    await refusedBy(
      (tx) => tx`update invoices set total_amount_atom = 600, pre_payment_credit_notes_amount_atom = 0, due_amount_atom = 600 where id = ${invoice.id}`,
      "credit_notes_within_invoice_total",
    );

    // Up to the total is fine (300 more), here rolled back.
    const rolledBack = new Error("roll back");
    await expect(
      sql.begin(async (tx) => {
        await copyOf(tx, issued.id, { id: `${issued.id}y`, number_sequence: 900_002, total_amount_atom: 300 });
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    expect((await sandbox.get(`/invoices/${invoice.id}`)).body).toEqual(before);
  });

  it("migration 0035 applies to a database populated before it (every invoice and credit note of this run so far)", async () => {
    await creditedInvoice();
    // A scratch database of this test alone: it holds copied invoices without their lines, which
    // the run's end-of-run event and PDF check (createFreshDatabase's drop) must not read.
    const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
    const name = `billing_migration_0035_${process.pid}_${Date.now()}`;
    await admin.unsafe(`create database "${name}"`);
    const freshUrl = new URL(ADMIN_DATABASE_URL);
    freshUrl.pathname = `/${name}`;
    const fresh = { url: freshUrl.toString() };
    const folder = mkdtempSync(path.join(tmpdir(), "migrations-0034-"));
    const client = postgres(fresh.url, { max: 1, onnotice: () => {} });
    try {
      // The schema as it was before 0035: the committed migrations with the journal cut at 0034.
      cpSync(path.join(process.cwd(), "db/migrations"), folder, { recursive: true });
      const journalFile = path.join(folder, "meta/_journal.json");
      const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { idx: number }[] };
      writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.filter((entry) => entry.idx < 35) }));
      await migrate(drizzle(client), { migrationsFolder: folder });
      expect(await client`select 1 from pg_constraint where conname = 'invoices_due_amount_non_negative'`).toHaveLength(0);

      // This run's invoices and credit notes (foreign keys are triggers: --disable-triggers leaves the rest out).
      // Columns that migrations after 0035 add are made here as text to take the dump's values, and
      // dropped before the migrations run again: the rows are those a database before 0035 held.
      const source = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
      const columnsOf = async (db: postgres.Sql) =>
        (await db`select table_name, column_name from information_schema.columns where table_schema = 'public' and table_name in ('invoices', 'credit_notes')`).map((row) => `${row.table_name}.${row.column_name}`);
      const present = new Set(await columnsOf(client));
      const later = (await columnsOf(source)).filter((column) => !present.has(column)).map((column) => column.split("."));
      await source.end({ timeout: 5 });
      for (const [table, column] of later) await client.unsafe(`alter table "${table}" add column "${column}" text`);
      const dump = execFileSync("pg_dump", ["--data-only", "--disable-triggers", "-t", "invoices", "-t", "credit_notes", process.env.DATABASE_URL!], { maxBuffer: 1 << 30 });
      execFileSync("psql", ["-q", "-v", "ON_ERROR_STOP=1", fresh.url], { input: dump });
      for (const [table, column] of later) await client.unsafe(`alter table "${table}" drop column "${column}"`);
      const [counts] = await client`select (select count(*) from invoices)::int as invoices, (select count(*) from credit_notes where status = 'issued')::int as issued`;
      expect(counts!.invoices).toBeGreaterThan(0);
      expect(counts!.issued).toBeGreaterThan(0);

      await migrate(drizzle(client), { migrationsFolder: path.join(process.cwd(), "db/migrations") });
      const constraints = await client`select conname from pg_constraint where conname like 'invoices_%' and contype = 'c' order by conname`;
      expect(constraints.map((row) => row.conname)).toEqual(["invoices_credit_notes_within_total", "invoices_due_amount_non_negative"]);
      const [invoice] = await client`select id from invoices limit 1`;
      await expect(client`update invoices set due_amount_atom = -1 where id = ${invoice!.id}`).rejects.toMatchObject({ code: "23514" });
    } finally {
      await client.end({ timeout: 5 });
      rmSync(folder, { recursive: true, force: true });
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    }
  });
});
