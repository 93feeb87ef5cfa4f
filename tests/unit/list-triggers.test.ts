import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { eq, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { countKey, LIST_DECLARATIONS, type ListDeclaration } from "@/db/list-declarations";
import { GENERATED_MARKER, listTriggersMigration } from "@/db/list-triggers";
import { listQuery } from "@/db/page";
import * as schema from "@/db/schema";
import { customers, prices } from "@/db/schema";
import { PROJECT_ROOT } from "../helpers/server";

/**
 * What a list shows is declared once (db/list-declarations.ts): the services filter with it and the
 * triggers that keep its totals are generated from it. The latest generated migration must be what
 * the declarations generate now; a declaration changed without a new migration fails here.
 */

const MIGRATIONS = path.join(PROJECT_ROOT, "db", "migrations");

/** The latest migration (in the journal's order) that db/list-triggers.ts wrote. */
function latestGeneratedMigration(): { tag: string; text: string } {
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };
  const generated = journal.entries
    .map(({ tag }) => ({ tag, text: readFileSync(path.join(MIGRATIONS, `${tag}.sql`), "utf8") }))
    .filter(({ text }) => text.startsWith(GENERATED_MARKER));
  expect(generated.length).toBeGreaterThan(0);
  return generated.at(-1)!;
}

/** Whether the triggers of the latest generated migration are those `declarations` generate. */
function triggersMatch(declarations: Record<string, ListDeclaration>): boolean {
  return listTriggersMigration(declarations) === latestGeneratedMigration().text;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe("list declarations and the list-count triggers", () => {
  it("the latest generated migration is what the declarations generate (else: a new migration, docs/ARCHITECTURE.md)", () => {
    const { tag, text } = latestGeneratedMigration();
    expect(tag).toMatch(/^\d{4}_/);
    // Compared as text: the diff shows which list's trigger or totals differ.
    expect(text).toBe(listTriggersMigration());
    expect(triggersMatch(LIST_DECLARATIONS)).toBe(true);
  });

  it("a declaration changed without a new migration no longer matches", () => {
    const countingDeleted: Record<string, ListDeclaration> = { ...LIST_DECLARATIONS, customers: { ...LIST_DECLARATIONS.customers, shown: undefined } };
    expect(triggersMatch(countingDeleted)).toBe(false);
    const withoutTypeTotals: Record<string, ListDeclaration> = { ...LIST_DECLARATIONS, prices: { ...LIST_DECLARATIONS.prices, keys: { active: prices.active } } };
    expect(triggersMatch(withoutTypeTotals)).toBe(false);
    const showingOthers: Record<string, ListDeclaration> = {
      ...LIST_DECLARATIONS,
      customers: { ...LIST_DECLARATIONS.customers, shown: isNull(customers.name) },
    };
    expect(triggersMatch(showingOthers)).toBe(false);
    const { event_deliveries: _dropped, ...oneListLess } = LIST_DECLARATIONS;
    expect(triggersMatch(oneListLess)).toBe(false);
  });

  it("a declaration's condition with a parameter cannot be written into a trigger", () => {
    expect(() => listTriggersMigration({ customers: { ...LIST_DECLARATIONS.customers, shown: eq(customers.email, "x") } })).toThrow(/no parameters/);
  });

  it("every list page of a declared table is read through its declaration (listQuery), not a copy of its filter", () => {
    const declaredTables = new Set(Object.values(LIST_DECLARATIONS).map((declaration) => declaration.table));
    const tableNames = Object.entries(schema).filter(([, table]) => declaredTables.has(table as never)).map(([name]) => name);
    const offenders: string[] = [];
    for (const file of sourceFiles(path.join(PROJECT_ROOT, "lib"))) {
      const source = readFileSync(file, "utf8");
      for (const match of source.matchAll(/\bpageOf\(\s*([A-Za-z_.]+)/g)) {
        if (tableNames.includes(match[1]!)) offenders.push(`${path.relative(PROJECT_ROOT, file)}: pageOf(${match[1]}, …)`);
      }
    }
    expect(offenders).toEqual([]);
    // The check sees the calls it looks for: every declared list is read by listQuery somewhere.
    const sources = sourceFiles(path.join(PROJECT_ROOT, "lib")).map((file) => readFileSync(file, "utf8")).join("\n");
    for (const list of Object.keys(LIST_DECLARATIONS)) expect(sources).toContain(`listQuery("${list}"`);
  });

  it("listQuery: a request's keys name its totals, a parent filter counts its own range, another filter is refused", () => {
    expect(countKey(LIST_DECLARATIONS.prices, { type: "one_time", product: undefined, active: true })).toBe("active=true&type=one_time");
    expect(listQuery("prices", "acc_test_x", { type: "one_time", active: true }).options.total).toBeDefined();
    expect(listQuery("prices", "acc_test_x", { type: "one_time", product: "price_test_x" }).options.total).toBeUndefined();
    // @ts-expect-error: `active` is not a filter of the invoices list
    expect(() => listQuery("invoices", "acc_test_x", { active: true })).toThrow(/no filter 'active'/);
  });
});
