import { execFile } from "node:child_process";
import { promisify } from "node:util";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { auditAccountMoney, type Difference } from "../../scripts/audit/money";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { PROJECT_ROOT } from "../helpers/server";

/*
 * `npm run audit:money` (scripts/audit-money.ts, docs/operations.md "Auditing the money"): an
 * account built through the API (taxes, a discount, payments in full and in part, refunds, credit
 * notes before and after payment and a voided one, balance credits and debts applied at
 * finalization, a draft) audits clean; one row corrupted with SQL is named, object and field.
 */

let merchant: Merchant;
let sandbox: Client;
let sql: postgres.Sql;
const built = { paid: "", partlyPaid: "", owing: "", creditCustomer: "", debtCustomer: "" };

/** A create or an action that must succeed (201 or 200). */
async function created(path: Parameters<Client["post"]>[0], body: Json = {}): Promise<Json> {
  const response = await sandbox.post(path, body);
  expect([200, 201], response.text).toContain(response.status);
  return response.body;
}

/** The real command, as an operator runs it, against the test database. */
async function runAudit(args: string[]): Promise<{ code: number; differences: Difference[]; stderr: string; stdout: string }> {
  const { code, stdout, stderr } = await promisify(execFile)("npm", ["run", "--silent", "audit:money", "--", ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATABASE_URL: inject("databaseUrl") },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
  // With --json, stdout is one difference per line.
  const differences = args.includes("--json")
    ? stdout
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as Difference)
    : [];
  return { code, differences, stderr, stdout };
}

beforeAll(async () => {
  merchant = await newMerchant();
  sandbox = api(merchant.sandboxSecret.token);
  sql = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {} });

  const vat = await created("/tax-rates", { display_name: "VAT", percentage: 19, inclusive: false });
  const reduced = await created("/tax-rates", { display_name: "Reduced VAT", percentage: 7, inclusive: true });
  const coupon = await created("/coupons", { percent_off: 10, duration: "forever" });
  const credit = await created("/customers", { email: "audit-credit@example.com", name: "Audit Credit" });
  const debt = await created("/customers", { email: "audit-debt@example.com", name: "Audit Debt" });
  built.creditCustomer = credit.id;
  built.debtCustomer = debt.id;
  await created(`/customers/${credit.id}/discount`, { coupon: coupon.id });

  // Paid in full by card, a direct refund, then a post-payment credit note split into a refund and a balance credit.
  const first = await created(
    "/invoices",
    {
      customer: credit.id,
      currency: "eur",
      lines: [
        { unit_amount_atom: 1000, quantity: 2, description: "Seats", tax_rates: [vat.id] },
        { unit_amount_atom: 500, description: "Books", tax_rates: [reduced.id] },
      ],
    });
  await created(`/invoices/${first.id}/finalize`);
  const paid = await created(`/invoices/${first.id}/pay`, { payment_method: "pm_sandbox_succeeds" });
  expect(paid.status).toBe("paid");
  const payments = (await sandbox.get(`/payments?payment_intent=${paid.payment_intent}`)).body.items as Json[];
  await created("/refunds", { payment: payments[0]!.id, amount_atom: 300 });
  await created("/credit-notes", { invoice: first.id, amount_atom: 500, refund_amount_atom: 200, credit_amount_atom: 300, reason: "order_change" });
  built.paid = first.id;

  // A goodwill credit applied at finalization, a partial payment, a credit note by line, and one voided.
  await created(`/customers/${credit.id}/balance-transactions`, { amount_atom: 500, currency: "eur", description: "Goodwill" });
  const second = await created(
    "/invoices",
    { customer: credit.id, currency: "eur", lines: [{ unit_amount_atom: 1000, quantity: 3, description: "Seats", tax_rates: [vat.id] }] });
  const open = await created(`/invoices/${second.id}/finalize`);
  expect(open.starting_balance_atom).toBe(800);
  const partly = await created(`/invoices/${second.id}/pay`, { payment_method: "pm_sandbox_partially_funded" });
  expect(partly.status).toBe("open");
  expect(partly.paid_amount_atom).toBeGreaterThan(0);
  await created("/credit-notes", { invoice: second.id, lines: [{ invoice_line: open.lines[0].id, quantity: 1 }], reason: "order_change" });
  const voided = await created("/credit-notes", { invoice: second.id, amount_atom: 100, reason: "duplicate" });
  await created(`/credit-notes/${voided.id}/void`);
  built.partlyPaid = second.id;

  // A debt carried onto the next invoice, left open; and a draft.
  await created(`/customers/${debt.id}/balance-transactions`, { amount_atom: -300, currency: "eur", description: "Unpaid fee" });
  const third = await created("/invoices", { customer: debt.id, currency: "eur", lines: [{ unit_amount_atom: 1200, description: "Support" }] });
  const owing = await created(`/invoices/${third.id}/finalize`);
  expect(owing.due_amount_atom).toBe(1500);
  built.owing = third.id;
  await created("/invoices", { customer: debt.id, currency: "eur", lines: [{ unit_amount_atom: 700, quantity: 2, description: "Draft" }] });
});

afterAll(async () => {
  await sql.end({ timeout: 5 });
});

describe("npm run audit:money", () => {
  it("finds no difference in an account built through the API: exit 0 and a one-line summary", async () => {
    const audit = await runAudit(["--account", merchant.sandboxAccountId]);
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    expect(audit.stdout.trim()).toMatch(new RegExp(`^No differences in ${merchant.sandboxAccountId} \\(4 invoices, 3 credit notes, 2 customers, 5 balance transactions, 2 payment intents, 2 payments, 2 refunds; \\d+ events\\)\\.$`));
  }, 300_000);

  it("names the invoice and the field whose amount due was changed behind the events' back, and exits 1", async () => {
    const [row] = await sql<{ due: string }[]>`select due_amount_atom as due from invoices where id = ${built.partlyPaid}`;
    await sql`update invoices set due_amount_atom = due_amount_atom + 1 where id = ${built.partlyPaid}`;
    try {
      const audit = await runAudit(["--account", merchant.sandboxAccountId, "--json"]);
      expect(audit.code, audit.stderr).toBe(1);
      expect(audit.differences.length).toBeGreaterThan(0);
      for (const difference of audit.differences) {
        expect(difference).toMatchObject({ object: built.partlyPaid, field: "due_amount_atom", expected: Number(row!.due), found: Number(row!.due) + 1 });
      }
      expect(audit.stderr).toMatch(new RegExp(`^${audit.differences.length} differences? in ${merchant.sandboxAccountId} `));
    } finally {
      await sql`update invoices set due_amount_atom = ${row!.due} where id = ${built.partlyPaid}`;
    }
  }, 300_000);

  it("names the customer and currency whose balance was changed without a ledger row, and exits 1", async () => {
    await sql`update customers set balances = jsonb_set(balances, '{eur}', to_jsonb((balances->>'eur')::bigint - 50)) where id = ${built.debtCustomer}`;
    try {
      const audit = await runAudit(["--account", merchant.sandboxAccountId, "--json"]);
      expect(audit.code, audit.stderr).toBe(1);
      expect(audit.differences).toEqual([
        expect.objectContaining({ object: built.debtCustomer, field: "balances.eur", expected: 0, found: -50 }),
      ]);
    } finally {
      await sql`update customers set balances = jsonb_set(balances, '{eur}', to_jsonb((balances->>'eur')::bigint + 50)) where id = ${built.debtCustomer}`;
    }
  }, 300_000);

  it("cannot run without an account, or with one the database does not have: exit 2, nothing audited", async () => {
    const missing = await runAudit([]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--account is required.");
    const unknown = await runAudit(["--account", "acc_prod_nosuchaccount"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("No account 'acc_prod_nosuchaccount' in this database.");
  }, 300_000);

  it("the exported function (what the property tests call) names a total that no longer adds up, on its invoice", async () => {
    const options = { databaseUrl: inject("databaseUrl"), accountId: merchant.sandboxAccountId };
    expect(await auditAccountMoney(options)).toEqual([]);
    await sql`update invoices set total_amount_atom = total_amount_atom + 7 where id = ${built.owing}`;
    try {
      const differences = await auditAccountMoney(options);
      expect(differences.length).toBeGreaterThan(0);
      for (const difference of differences) expect(difference.object).toBe(built.owing);
      expect(differences.map((difference) => difference.field)).toContain("total_amount_atom");
    } finally {
      await sql`update invoices set total_amount_atom = total_amount_atom - 7 where id = ${built.owing}`;
    }
  });
});
