import { readFileSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type Client, type Json } from "../helpers/api";
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

  it("migration 0035 applies to a populated database (its rows satisfy the invariants)", async () => {
    await creditedInvoice();
    const file = readFileSync(path.join(process.cwd(), "db/migrations/0035_money_invariants.sql"), "utf8");
    const statements = file.split("--> statement-breakpoint");
    const rolledBack = new Error("roll back");
    await expect(
      sql.begin(async (tx) => {
        await tx`drop trigger credit_notes_within_invoice_total on credit_notes`;
        await tx`drop trigger invoices_total_covers_credit_notes on invoices`;
        await tx`drop function credit_notes_within_invoice_total()`;
        await tx`alter table invoices drop constraint invoices_due_amount_non_negative, drop constraint invoices_credit_notes_within_total`;
        expect(Number((await tx`select count(*) as n from credit_notes where status = 'issued'`)[0]!.n)).toBeGreaterThan(0);
        for (const statement of statements) await tx.unsafe(statement);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
  });
});
