import { request as httpRequest } from "node:http";
import { gunzipSync } from "node:zlib";
import { parse } from "csv-parse/sync";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { csvHeader, csvText, type ExportColumns } from "@/lib/api/export";
import { exportCreditNotesOperation } from "@/lib/credit-notes/operations";
import { exportCustomersOperation } from "@/lib/customers/operations";
import { exportEventsOperation } from "@/lib/events-api/operations";
import { csvCell } from "@/lib/events-api/service";
import { exportInvoicesOperation } from "@/lib/invoices/operations";
import { exportPaymentIntentsOperation } from "@/lib/payments/operations";
import { exportRefundsOperation } from "@/lib/refunds/operations";
import { exportSubscriptionsOperation } from "@/lib/subscriptions/operations";
import { rowsOf } from "@/lib/rows";
import { api, apiBaseUrl, type Client, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

// Exports (docs/api.md, "Exports"): each resource's export holds exactly its list's items for the
// same filters, as NDJSON (the list's objects) and as CSV (its documented columns), escaped.

let merchant: Merchant;
let sandbox: Client;
let account: string;
const ids: Record<string, string> = {};

/** Every item of a list for `query` (filters, no paging), paging through it 7 at a time. */
async function listAll(path: string, query: string): Promise<Json[]> {
  const items: Json[] = [];
  let after: string | undefined;
  for (;;) {
    const separator = query ? "&" : "?";
    const page = await sandbox.get(`/${account}${path}${query}${separator}limit=7${after ? `&starting_after=${after}` : ""}` as "/customers");
    expect(page.status, page.text).toBe(200);
    items.push(...page.body.items);
    if (!page.body.has_more) return items;
    after = page.body.items.at(-1).id;
  }
}

async function download(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${apiBaseUrl()}/${account}${path}`, { headers: { Authorization: `Bearer ${merchant.sandboxSecret.token}`, ...headers } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** A cell as the CSV must hold it: JSON for objects, `true`/`false`, a formula's text behind `'`. */
function cellOf(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return String(value);
  const text = String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/** The CSV records a list's items must export as: one per item, or one per line with `lines`. */
function expectedRecords(items: Json[], table: ExportColumns<never>): string[][] {
  const own = table.columns.map((column) => column.name);
  const lineNames = table.lines ? table.lines.columns.map((column) => column.name.replace(/^line_/, "")) : null;
  return items.flatMap((item) => {
    const cells = own.map((name) => cellOf(item[name]));
    if (!lineNames) return [cells];
    if (item.lines.length === 0) return [[...cells, ...lineNames.map(() => "")]];
    return item.lines.map((line: Json) => [...cells, ...lineNames.map((name) => cellOf(line[name]))]);
  });
}

beforeAll(async () => {
  merchant = await newMerchant();
  sandbox = api(merchant.sandboxSecret.token);
  account = merchant.sandboxAccountId;
  // Customers whose text a spreadsheet would misread: formulas, quotes, commas, line breaks.
  const names = ['=HYPERLINK("http://evil.example","x")', "+1 555", "-2+3", "@SUM(A1)", "\tTabbed", 'Quote "q", comma', "Two\r\nlines", "Plain"];
  const customers: Json[] = [];
  for (const [index, name] of names.entries()) {
    const response = await sandbox.post("/customers", { email: `export${index}@example.com`, name, metadata: { note: index % 2 ? "=1+1" : "a,b" } });
    expect(response.status, response.text).toBe(201);
    customers.push(response.body);
  }
  // Events whose correlation id (a client's X-Correlation-Id, kept on the event) a spreadsheet would misread.
  for (const correlation of ['=HYPERLINK("x",1)', "-1", "+a,b", '@x"y', "plain"]) {
    const created = await sandbox.post("/products", { name: `Correlated ${correlation}` }, { headers: { "X-Correlation-Id": correlation } });
    expect(created.status, created.text).toBe(201);
  }
  ids.customer = customers[0]!.id;
  ids.midCustomerCreated = customers[3]!.created;
  const product = (await sandbox.post("/products", { name: "Plan" })).body;
  const price = (await sandbox.post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 2000, type: "recurring", recurring: { interval: "month" } })).body;
  for (const customer of customers.slice(0, 3)) {
    const sub = await sandbox.post("/subscriptions", { customer: customer.id, items: [{ price: price.id }], trial_period_days: 7 });
    expect(sub.status, sub.text).toBe(201);
  }
  // Invoices with two lines, one without any, finalized and paid; a credit note on one.
  const invoices: Json[] = [];
  for (const customer of customers.slice(0, 4)) {
    const lines = customer === customers[3] ? [] : [{ unit_amount_atom: 1000, quantity: 3, description: "Seats, \"pro\"" }, { unit_amount_atom: 500, description: "-Discount" }];
    const draft = await sandbox.post("/invoices", { customer: customer.id, currency: "usd", lines });
    expect(draft.status, draft.text).toBe(201);
    invoices.push(draft.body);
  }
  const open = (await sandbox.post(`/invoices/${invoices[0]!.id}/finalize`)).body;
  ids.invoice = open.id;
  const paid = await sandbox.post(`/invoices/${open.id}/pay`, { payment_method: "pm_sandbox_succeeds" });
  expect(paid.status, paid.text).toBe(200);
  const note = await sandbox.post("/credit-notes", { invoice: open.id, amount_atom: 500, reason: "duplicate" });
  expect(note.status, note.text).toBe(201);
  const second = (await sandbox.post(`/invoices/${invoices[1]!.id}/finalize`)).body;
  expect((await sandbox.post("/credit-notes", { invoice: second.id, amount_atom: 100, reason: "order_change", memo: "=cmd" })).status).toBe(201);
  // Payments and refunds.
  for (const amount of [1500, 2500, 3500]) {
    const intent = await sandbox.post("/payment-intents", { amount_atom: amount, currency: "usd", customer: customers[1]!.id, payment_method: "pm_sandbox_succeeds", confirm: true, metadata: { order: "@x" } });
    expect(intent.status, intent.text).toBe(201);
    const payment = (await sandbox.get(`/payments?payment_intent=${intent.body.id}`)).body.items[0];
    ids.payment = payment.id;
    expect((await sandbox.post("/refunds", { payment: payment.id, amount_atom: 100 })).status).toBe(201);
    expect((await sandbox.post("/refunds", { payment: payment.id, amount_atom: 200, metadata: { why: "+plus" } })).status).toBe(201);
  }
});

/**
 * `jsonCells`: the CSV's JSON cells are PostgreSQL's text of the stored JSON (spaces after `:` and
 * `,`; exportEventText), so they are compared as values; every other cell, byte for byte.
 */
type Case = { path: string; table: ExportColumns<never>; queries: () => string[]; jsonCells?: true };

/** A record with its JSON cells (objects and arrays) parsed. */
function withJsonParsed(record: string[]): unknown[] {
  return record.map((cell) => (/^[[{]/.test(cell) ? JSON.parse(cell) : cell));
}
const CASES: Case[] = [
  {
    path: "/customers",
    table: exportCustomersOperation.exportColumns as ExportColumns<never>,
    queries: () => ["", "?q=example.com", `?created[gte]=${ids.midCustomerCreated}`, `?created[lt]=${ids.midCustomerCreated}&expand=custom_fields`],
  },
  { path: "/subscriptions", table: exportSubscriptionsOperation.exportColumns as ExportColumns<never>, queries: () => ["", `?customer=${ids.customer}`, "?status=trialing"] },
  { path: "/invoices", table: exportInvoicesOperation.exportColumns as ExportColumns<never>, queries: () => ["", "?status=draft", `?customer=${ids.customer}`] },
  { path: "/credit-notes", table: exportCreditNotesOperation.exportColumns as ExportColumns<never>, queries: () => ["", `?invoice=${ids.invoice}`] },
  { path: "/payment-intents", table: exportPaymentIntentsOperation.exportColumns as ExportColumns<never>, queries: () => ["", "?status=succeeded"] },
  { path: "/refunds", table: exportRefundsOperation.exportColumns as ExportColumns<never>, queries: () => ["", `?payment=${ids.payment}`] },
  {
    path: "/events",
    table: exportEventsOperation.exportColumns as ExportColumns<never>,
    jsonCells: true,
    // Without expand: NDJSON lines and CSV records written by PostgreSQL (exportEventText), with each filter and the range.
    queries: () => [
      "",
      "?aggregate_type=customer",
      "?event_type=refund.created",
      `?aggregate_id=${ids.customer}`,
      `?created[lt]=${ids.midCustomerCreated}`,
      `?created[gte]=${ids.midCustomerCreated}&expand=delivery_summary`,
    ],
  },
];

describe("exports", () => {
  it.each(CASES)("$path: NDJSON is the list's items, CSV its documented columns, for every filter", async ({ path, table, queries, jsonCells }) => {
    for (const query of queries()) {
      const items = await listAll(path, query);
      const join = query ? "&" : "?";
      const ndjson = await download(`${path}/export${query}${join}format=ndjson`);
      expect(ndjson.status, ndjson.text).toBe(200);
      expect(ndjson.headers.get("content-type")).toBe("application/x-ndjson");
      expect(ndjson.text === "" || ndjson.text.endsWith("\n")).toBe(true);
      const lines = ndjson.text.split("\n").filter((line) => line !== "");
      expect({ query, items: lines.map((line) => JSON.parse(line)) }).toEqual({ query, items });

      const csv = await download(`${path}/export${query}${join}format=csv`);
      expect(csv.status, csv.text).toBe(200);
      expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="[a-z-]+\.csv"$/);
      const records = parse(csv.text, { relax_column_count: false }) as string[][];
      expect(records[0]).toEqual(csvHeader(table));
      const expected = expectedRecords(items, table);
      if (jsonCells) expect({ query, records: records.slice(1).map(withJsonParsed) }).toEqual({ query, records: expected.map(withJsonParsed) });
      else expect({ query, records: records.slice(1) }).toEqual({ query, records: expected });
    }
    // The round trip saw items (each resource has data here).
    expect((await listAll(path, "")).length).toBeGreaterThan(1);
  });

  it("CSV is RFC 4180 and a spreadsheet runs no formula from it", async () => {
    const csv = await download("/customers/export?format=csv");
    // CRLF records, the header first, quoted fields where a quote, comma or line break is.
    expect(csv.text.startsWith("id,email,name,preferred_locale,default_tax_rate,tax_ids,invoice_emails,address,balances,metadata,livemode,created,updated\r\n")).toBe(true);
    expect(csv.text).toContain(`,"'=HYPERLINK(""http://evil.example"",""x"")",`);
    expect(csv.text).toContain(`,'+1 555,`);
    expect(csv.text).toContain(`,'-2+3,`);
    expect(csv.text).toContain(`,'@SUM(A1),`);
    expect(csv.text).toContain(`,'\tTabbed,`);
    expect(csv.text).toContain(`,"Quote ""q"", comma",`);
    expect(csv.text).toContain(`,"Two\r\nlines",`);
    expect(csv.text).toContain(`,"{""note"":""a,b""}",`);
    const names = (parse(csv.text, { columns: true }) as Record<string, string>[]).map((record) => record.name);
    expect(names).toEqual(expect.arrayContaining(["'=HYPERLINK(\"http://evil.example\",\"x\")", "'+1 555", "'-2+3", "'@SUM(A1)", "'\tTabbed", 'Quote "q", comma', "Two\r\nlines", "Plain"]));
    const invoices = parse((await download("/invoices/export?format=csv")).text, { columns: true }) as Record<string, string>[];
    expect(invoices.map((record) => record.line_description)).toContain("'-Discount");
  });

  it("the events CSV, written by PostgreSQL, escapes a client's text as csv-stringify does", async () => {
    const csv = await download("/events/export?format=csv&aggregate_type=product");
    expect(csv.text.startsWith(`${csvHeader(exportEventsOperation.exportColumns as ExportColumns<never>).join(",")}\r\n`)).toBe(true);
    expect(csv.text.endsWith("\r\n")).toBe(true);
    expect(csv.text).toContain(`,"'=HYPERLINK(""x"",1)",`);
    expect(csv.text).toContain(`,'-1,`);
    expect(csv.text).toContain(`,"'+a,b",`);
    expect(csv.text).toContain(`,"'@x""y",`);
  });

  it("the events CSV's cells, as PostgreSQL writes them, are csv-stringify's, string for string", async () => {
    const db = await getDb();
    // Strings dense in what CSV must escape (formula starts, quotes, commas, line breaks, the
    // full-width forms), and any text PostgreSQL can hold (all but NUL).
    const special = fc.constantFrom("=", "+", "-", "@", "\t", "\r", "\n", '"', ",", "'", " ", "a", "1", "\uFF1D", "\uFF0B", "\uFF0D", "\uFF20", "é", "😀");
    const text = fc.oneof(fc.string({ unit: special, maxLength: 8 }), fc.string({ unit: "grapheme", maxLength: 12 }).map((value) => value.replaceAll("\u0000", "")));
    await fc.assert(
      fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 40 }), async (values) => {
        const cells = rowsOf<{ cell: string }>(
          await db.execute(sql`select ${csvCell(sql`value`)} as cell from json_array_elements_text(${JSON.stringify(values)}::json) with ordinality as given(value, position) order by position`),
        ).map((row) => row.cell);
        expect(cells).toEqual(values.map((value) => csvText([[value]]).slice(0, -2)));
      }),
      { numRuns: 60 },
    );
  });

  it("gzip when the client accepts it, plain otherwise", async () => {
    const raw = (encoding: string | undefined) =>
      new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        const url = new URL(`${apiBaseUrl()}/${account}/events/export?format=ndjson`);
        const request = httpRequest(
          { host: url.hostname, port: url.port, path: url.pathname + url.search, headers: { Authorization: `Bearer ${merchant.sandboxSecret.token}`, ...(encoding ? { "Accept-Encoding": encoding } : {}) } },
          (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.on("end", () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
            response.on("error", reject);
          },
        );
        request.on("error", reject);
        request.end();
      });
    const plain = await raw(undefined);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    const zipped = await raw("gzip, deflate");
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(zipped.headers.vary).toMatch(/Accept-Encoding/);
    expect(gunzipSync(zipped.body).toString()).toBe(plain.body.toString());
    expect(zipped.body.length).toBeLessThan(plain.body.length);
    expect((await raw("gzip;q=0")).headers["content-encoding"]).toBeUndefined();
  });

  it("a bad filter or format is a 400 problem, before any byte of a file", async () => {
    const cases = [
      "/customers/export?format=xml",
      "/customers/export",
      "/invoices/export?format=csv&status=bogus",
      "/events/export?format=ndjson&event_type=no.such",
      "/customers/export?format=csv&created[gte]=yesterday",
      // Paging is the export's own: the list's paging parameters are refused.
      "/customers/export?format=csv&limit=5",
      "/customers/export?format=csv&starting_after=cus_x",
    ];
    for (const path of cases) {
      const response = await sandbox.offContract.get(`/${account}${path}`);
      expectProblem(response, 400);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
    }
    // Another account's export is refused like its list.
    expectProblem(await sandbox.offContract.get(`/${merchant.accountId}/customers/export?format=csv`), 403);
    // The unscoped path acts on the token's account.
    const unscoped = await fetch(`${apiBaseUrl()}/customers/export?format=ndjson`, { headers: { Authorization: `Bearer ${merchant.sandboxSecret.token}` } });
    expect((await unscoped.text()).split("\n").filter(Boolean).length).toBe((await listAll("/customers", "")).length);
  });
});
