import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/db/client";
import { createOrganization } from "@/lib/organizations/service";
import { createMigratedDatabase, type TestDatabase } from "../helpers/database";
import { describePdfCheck } from "../helpers/event-check";
import { checkInvoicePdfs } from "../helpers/pdf-check";

/**
 * Which documents the run's check of issued PDFs takes (tests/helpers/pdf-check.ts): given a
 * sample, the first of every shape and of every optional block, and the sample; without one, all.
 * Every invoice here records a hash no render gives, so each document checked is a failure naming
 * it: the failures are the documents chosen.
 */
let database: TestDatabase;
let client: postgres.Sql;
let db: Database;
let euro: string;
let discounted: string;

// In a whole `vitest run` this worker inherits the run's own ledger: this file's database, whose
// invoices fail the check on purpose, must not be checked into it when dropped.
const RUN_LEDGER = ["EVENT_CHECK_LEDGER", "EVENT_CHECK_USERS", "EVENT_CHECK_SUITES"] as const;
const runLedger = Object.fromEntries(RUN_LEDGER.map((name) => [name, process.env[name]]));

beforeAll(async () => {
  for (const name of RUN_LEDGER) delete process.env[name];
  database = await createMigratedDatabase("pdf_check");
  client = postgres(database.url, { max: 1, onnotice: () => {} });
  db = drizzle(client) as unknown as Database;
  const { sandboxAccountId: account } = await createOrganization(db, { name: "PDF check" });
  await client`insert into customers (id, account_id, email) values ('cus_pdf_check', ${account}, 'buyer@example.com')`;
  const document = (locale: string) => ({
    locale,
    seller: { name: "PDF check", address: null, tax_id: null, email: null },
    buyer: { name: null, email: "buyer@example.com", address: null, tax_ids: [] },
    lines: [{ title: "Plan", detail: null }],
    tax_rates: [],
    footer: null,
  });
  const invoice = (id: string, currency: string, locale: string, discount = 0) =>
    client`insert into invoices (id, account_id, customer_id, status, currency, number, finalized_at, discount_atom, document, pdf_sha256)
      values (${id}, ${account}, 'cus_pdf_check', 'open', ${currency}, ${id.toUpperCase()}, '2026-03-01T00:00:00Z', ${discount}, ${JSON.stringify(document(locale))}::jsonb, ${"0".repeat(64)})`;
  // Twenty of one shape (usd, en, one line, no tax), one euro invoice in German, one of the first shape with a discount, a draft.
  for (let index = 0; index < 20; index++) await invoice(`in_usd_${index}`, "usd", "en");
  euro = "in_eur_de";
  await invoice(euro, "eur", "de");
  discounted = "in_usd_discounted";
  await invoice(discounted, "usd", "en", 100);
  await client`insert into invoices (id, account_id, customer_id, status, currency) values ('in_draft', ${account}, 'cus_pdf_check', 'draft', 'usd')`;
}, 120_000);

afterAll(async () => {
  await client?.end({ timeout: 5 });
  await database?.drop();
  for (const name of RUN_LEDGER) if (runLedger[name] !== undefined) process.env[name] = runLedger[name];
});

describe("the run's check of issued PDFs: which documents (tests/helpers/pdf-check.ts)", () => {
  it("given a sample, checks the first of every shape and optional block and the sample, and says so", { timeout: 120_000 }, async () => {
    const { failures, ...coverage } = await checkInvoicePdfs(db, "pdf_check", { sample: 2 });
    const checked = new Set(failures.map((failure) => failure.eventId));
    expect(coverage).toMatchObject({ finalized: 22, shapes: 2, features: 1, sample: 2 });
    // The euro invoice is its own shape, the discounted one the only one with a discount: both always.
    expect(checked.has(euro)).toBe(true);
    expect(checked.has(discounted)).toBe(true);
    // Besides them the first of the usd shape (the discounted one may be it) and two by the ids' hash
    // (which may be among those already chosen): never the twenty.
    expect(coverage.checked).toBe(checked.size);
    expect(coverage.checked).toBeGreaterThanOrEqual(2);
    expect(coverage.checked).toBeLessThanOrEqual(5);
    expect(failures.every((failure) => failure.errors.includes("pdf_sha256 recorded at finalization"))).toBe(true);
    expect(describePdfCheck([coverage])).toMatch(
      new RegExp(`^${coverage.checked} finalized invoices' PDFs checked in [0-9.]+ s \\(tests/helpers/pdf-check\\.ts\\): ${coverage.checked} of 22 in a database checked by shape and sample \\(the first of each of its 2 shapes .* and of its 1 optional blocks, and 2 by the ids' hash\\)$`),
    );
  });

  it("without one, checks every finalized document", { timeout: 120_000 }, async () => {
    const { failures, ...coverage } = await checkInvoicePdfs(db, "pdf_check");
    expect(coverage).toMatchObject({ checked: 22, finalized: 22, sample: null });
    expect(new Set(failures.map((failure) => failure.eventId)).size).toBe(22);
    expect(describePdfCheck([coverage])).toMatch(/^22 finalized invoices' PDFs checked in [0-9.]+ s \(tests\/helpers\/pdf-check\.ts\): 22 of 22 in 1 databases checked whole/);
  });
});
