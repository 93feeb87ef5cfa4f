import { readFileSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedDatabase } from "../helpers/isolated-database";

/**
 * Migration 0042 (docs/rules/invoices.md, "The default prefix is short"): an account that numbered
 * invoices under the old derived default keeps that prefix, pinned; others keep theirs or none.
 */
describe("migration 0042: the old default prefix is pinned where it numbered invoices", () => {
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let sql: postgres.Sql;
  beforeAll(async () => {
    database = await isolatedDatabase("prefix_pin");
    sql = postgres(database.url, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await sql?.end();
    await database?.drop();
  });

  it("sets invoice_prefix from the last number of an account with numbered invoices and null prefix, and nothing else", async () => {
    const live = database.accountId;
    const [{ sandbox } = { sandbox: "" }] = await sql<{ sandbox: string }[]>`
      select a.id as sandbox from accounts a join accounts l on l.organization_id = a.organization_id where l.id = ${live} and a.id <> ${live}`;
    await sql`insert into customers (id, account_id, email) values ('cus_pin1', ${live}, 'a@example.com'), ('cus_pin2', ${sandbox}, 'b@example.com')`;
    await sql`insert into invoices (id, account_id, customer_id, status, currency, number, number_sequence) values
      ('inv_pin1', ${live}, 'cus_pin1', 'open', 'eur', 'DEMOCOMPANYS-0001', 1),
      ('inv_pin2', ${live}, 'cus_pin1', 'paid', 'eur', 'DEMOCOMPANYS-0002', 2),
      ('inv_pin3', ${live}, 'cus_pin1', 'draft', 'eur', null, null),
      ('inv_pin4', ${sandbox}, 'cus_pin2', 'draft', 'eur', null, null)`;
    // The migration's first statement (the next adds a column, already in this migrated database).
    const [migration = ""] = readFileSync(path.join(process.cwd(), "db", "migrations", "0042_dashboard_names.sql"), "utf8").split("--> statement-breakpoint");
    await sql.unsafe(migration);
    const rows = await sql<{ id: string; invoice_prefix: string | null }[]>`select id, invoice_prefix from accounts where id in (${live}, ${sandbox})`;
    expect(Object.fromEntries(rows.map((row) => [row.id, row.invoice_prefix]))).toEqual({ [live]: "DEMOCOMPANYS", [sandbox]: null });

    // An explicit prefix is never overwritten.
    await sql`update accounts set invoice_prefix = 'OWN-1' where id = ${live}`;
    await sql.unsafe(migration);
    expect((await sql`select invoice_prefix from accounts where id = ${live}`)[0]!.invoice_prefix).toBe("OWN-1");
  });
});
