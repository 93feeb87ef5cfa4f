import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../helpers/server";

/**
 * The lint configuration is only worth what its rules catch. Each case lints a few lines as if they
 * were a file at the given path and expects the rule to fire there: the house rules of
 * eslint.config.mjs, and the plugins eslint-config-next brings (whose peer ranges lag ESLint's
 * majors, so a plugin that silently stopped loading would otherwise pass lint by reporting nothing).
 */
type Case = {
  rule: string;
  /** Where the probe is written: `{unique}` names a fresh folder (for rules on exact file names), else the file name gets a unique suffix. */
  filePath: string;
  code: string;
  /** Part of the expected message, for rules (like boundaries/dependencies) that say several things. */
  message?: string;
};

/** A layer rule of eslint.config.mjs ("Layer boundaries") fires: `from` may not import `to`. */
const layer = (from: string, to: string) => `elements of type "${to}" are not allowed in elements of type "${from}"`;

const CASES: Case[] = [
  { rule: "@typescript-eslint/no-explicit-any", filePath: "lib/lint-probe.ts", code: "export const a = 1 as any;\n" },
  {
    rule: "@typescript-eslint/no-floating-promises",
    filePath: "lib/lint-probe.ts",
    code: "async function f(): Promise<void> {}\nexport function g(): void {\n  f();\n}\n",
  },
  {
    rule: "react-hooks/rules-of-hooks",
    filePath: "components/lint-probe.tsx",
    code: 'import { useState } from "react";\nexport function C({ on }: { on: boolean }) {\n  if (on) useState(0);\n  return null;\n}\n',
  },
  { rule: "@next/next/no-html-link-for-pages", filePath: "components/lint-probe.tsx", code: 'export function C() {\n  return <a href="/">Home</a>;\n}\n' },
  { rule: "jsx-a11y/alt-text", filePath: "components/lint-probe.tsx", code: 'export function C() {\n  return <img src="/x.png" />;\n}\n' },
  { rule: "import/no-anonymous-default-export", filePath: "lib/lint-probe.ts", code: "export default { a: 1 };\n" },
  {
    rule: "no-restricted-syntax",
    filePath: "lib/customers/lint-probe.ts",
    code: "export const now = (): Date => new Date();\n",
  },
  { rule: "no-restricted-properties", filePath: "lib/customers/lint-probe.ts", code: "export const port = process.env.PORT;\n" },
  { rule: "no-restricted-imports", filePath: "app/lint-probe.ts", code: 'import { sql } from "drizzle-orm";\nexport const q = sql`select 1`;\n' },
  { rule: "boundaries/dependencies", filePath: "lib/customers/lint-probe.ts", code: 'import { Pager } from "@/components/ui/pager";\nexport const c = Pager;\n' },
  { rule: "no-console", filePath: "lib/customers/lint-probe.ts", code: 'console.log("hello");\n' },
  // The clock rule holds in webhook delivery and the Inngest functions too (realNow() names real time).
  { rule: "no-restricted-syntax", filePath: "lib/webhooks/lint-probe.ts", code: "export const at = Date.now();\n" },
  { rule: "no-restricted-syntax", filePath: "inngest/functions/lint-probe.ts", code: "export const at = (): Date => new Date();\n" },
  // One function prices a price (issue 42): unit amount × quantity outside lib/prices, as today's
  // code did in checkout, proration, usage billing and invoice lines; the clock rule still holds beside it.
  { rule: "no-restricted-syntax", message: "amountOf", filePath: "lib/checkout/lint-probe.ts", code: "export const total = (price: { unitAmountAtom: number }, q: number) => BigInt(price.unitAmountAtom) * BigInt(q);\n" },
  { rule: "no-restricted-syntax", message: "amountOf", filePath: "lib/subscription-changes/lint-probe.ts", code: "export const total = (item: { unitAmountAtom: number; quantity: number }) => item.unitAmountAtom * item.quantity;\n" },
  { rule: "no-restricted-syntax", message: "amountOf", filePath: "components/objects/lint-probe.ts", code: "export const total = (line: { unit_amount_atom: number; quantity: number }) => line.quantity * line.unit_amount_atom;\n" },
  { rule: "no-restricted-syntax", message: "amountOf", filePath: "app/portal/lint-probe.ts", code: 'export const total = (line: Record<string, number>, q: number) => line["unit_amount_atom"]! * q;\n' },
  { rule: "no-restricted-syntax", message: "ctx.now()", filePath: "lib/invoices/lint-probe.ts", code: "export const now = (): Date => new Date();\n" },
  { rule: "no-restricted-syntax", message: "ctx.now()", filePath: "lib/prices/lint-probe.ts", code: "export const now = (): Date => new Date();\n" },
  // A test reads a status with statusOf(): an unread body held config-start's app past its stop.
  { rule: "no-restricted-syntax", message: "statusOf", filePath: "tests/api/lint-probe.test.ts", code: "export const s = async (url: string) => (await fetch(url)).status;\n" },
  // The layers (docs/ARCHITECTURE.md, "Layers"), one probe per policy.
  {
    rule: "boundaries/dependencies",
    message: layer("domain", "api"),
    filePath: "lib/customers/lint-probe.ts",
    code: 'import { handle } from "@/lib/api/handler";\nexport const h = handle;\n',
  },
  {
    rule: "boundaries/dependencies",
    message: layer("domain", "flows"),
    filePath: "lib/invoices/lint-probe.ts",
    code: 'import { completeCheckoutSession } from "@/lib/checkout/complete";\nexport const c = completeCheckoutSession;\n',
  },
  {
    rule: "boundaries/dependencies",
    message: layer("flows", "api"),
    filePath: "lib/portal/lint-probe.ts",
    code: 'import { apiRouter } from "@/lib/server/routes";\nexport const r = apiRouter;\n',
  },
  {
    rule: "boundaries/dependencies",
    message: layer("infrastructure", "api"),
    filePath: "lib/events/lint-probe.ts",
    code: 'import { problemBody } from "@/lib/api/problem";\nexport const p = problemBody;\n',
  },
  {
    rule: "boundaries/dependencies",
    message: layer("infrastructure", "domain"),
    filePath: "lib/webhooks/lint-probe.ts",
    code: 'import { createCustomer } from "@/lib/customers/service";\nexport const c = createCustomer;\n',
  },
  {
    // The clock runs the transitions handed to it at start-up (lib/server/wiring.ts); it imports none.
    rule: "boundaries/dependencies",
    message: layer("infrastructure", "domain"),
    filePath: "lib/clock/lint-probe.ts",
    code: 'import { invoiceOverdue } from "@/lib/invoices/overdue";\nexport const t = [invoiceOverdue];\n',
  },
  {
    rule: "boundaries/dependencies",
    message: layer("declarations", "domain"),
    filePath: "lib/lint-probe-{unique}/schema.ts",
    code: 'import { createCustomer } from "@/lib/customers/service";\nexport const c = createCustomer;\n',
  },
  {
    rule: "boundaries/dependencies",
    message: layer("values", "domain"),
    filePath: "lib/api/pagination.ts",
    code: 'import { createCustomer } from "@/lib/customers/service";\nexport const c = createCustomer;\n',
  },
  {
    // lib/time.ts is pure: the clock's machinery sits above it.
    rule: "boundaries/dependencies",
    message: layer("values", "infrastructure"),
    filePath: "lib/time.ts",
    code: 'import { clockTicker } from "@/lib/clock/ticker";\nexport const t = clockTicker;\n',
  },
  {
    rule: "boundaries/dependencies",
    message: layer("db", "domain"),
    filePath: "db/lint-probe.ts",
    code: 'import { createCustomer } from "@/lib/customers/service";\nexport const c = createCustomer;\n',
  },
  {
    rule: "boundaries/dependencies",
    message: layer("db", "infrastructure"),
    filePath: "db/lint-probe.ts",
    code: 'import { emitEvent } from "@/lib/events/emit";\nexport const e = emitEvent;\n',
  },

  // The SDK ships without the app (packages/sdk is a package of its own).
  { rule: "no-restricted-imports", filePath: "packages/sdk/src/lint-probe.ts", code: 'import { config } from "@/lib/config";\nexport const c = config;\n' },
];

/** A file that must pass: the same shapes as the probes, with nothing a rule forbids. */
type Clean = { name: string; filePath: string; code: string };

const CLEAN: Clean[] = [
  {
    name: "passes a clean file of the same shapes",
    filePath: "components/lint-probe.tsx",
    code: 'import { useState } from "react";\nexport function C() {\n  const [n] = useState(0);\n  return <span>{n}</span>;\n}\n',
  },
  {
    name: "lets lib/prices, the one function that prices a price, multiply a unit amount",
    filePath: "lib/prices/lint-probe.ts",
    code: "export const amount = (price: { unitAmountAtom: number }, q: number) => BigInt(price.unitAmountAtom) * BigInt(q);\n",
  },
  // The layers' allowed imports. A domain service may use events, the database, declarations and the shared kernel.
  {
    name: "passes the layers' allowed imports: a domain service's",
    filePath: "lib/customers/lint-probe.ts",
    code: [
      'import { emitEvent } from "@/lib/events/emit";',
      'import { getDb } from "@/db/client";',
      'import { Customer } from "@/lib/customers/schema";',
      'import { realNow } from "@/lib/time";',
      "export const uses = [emitEvent, getDb, Customer, realNow];",
      "",
    ].join("\n"),
  },
  {
    name: "passes the layers' allowed imports: the database layer's",
    filePath: "db/lint-probe.ts",
    code: 'import { EVENT_TYPES } from "@/lib/events/catalogue";\nimport { one } from "@/lib/rows";\nexport const uses = [EVENT_TYPES, one];\n',
  },
  // A flow combines domain objects; the composition root may import every layer below the pages.
  {
    name: "passes the layers' allowed imports: a flow's",
    filePath: "lib/flows/lint-probe.ts",
    code: 'import { createCustomer } from "@/lib/customers/service";\nimport { createInvoice } from "@/lib/invoices/service";\nexport const uses = [createCustomer, createInvoice];\n',
  },
  {
    name: "passes the layers' allowed imports: the composition root's",
    filePath: "lib/server/lint-probe.ts",
    code: 'import { completeCheckoutSession } from "@/lib/checkout/complete";\nimport { registerTimeTransitions } from "@/lib/clock/registry";\nexport const uses = [completeCheckoutSession, registerTimeTransitions];\n',
  },
];

type Reported = { rule: string; message: string };

/**
 * What is reported for each probe's `code` written at its `filePath`, under a name of its own. A
 * path of a file that exists (a layer known by its exact name) is linted as if `code` were its
 * text, unwritten. The written probes are linted in one call: the typed rules' TypeScript program
 * is built once for all of them, where a probe at a time rebuilt it for each (about 20 s of a
 * core for the file alone, docs/testing.md "The lint probes").
 */
async function lintEach(eslint: ESLint, probes: { filePath: string; code: string }[]): Promise<Reported[][]> {
  const report = (result: ESLint.LintResult | undefined) =>
    (result?.messages ?? []).map((message) => ({ rule: message.ruleId ?? message.message, message: message.message }));
  // Per probe, the file written for it (and what to remove after), or none for a path that exists.
  const written: ({ file: string; removes: string } | undefined)[] = [];
  try {
    for (const [index, probe] of probes.entries()) {
      if (existsSync(path.join(PROJECT_ROOT, probe.filePath))) {
        written.push(undefined);
        continue;
      }
      const unique = `${process.pid}-${index}-${Math.random().toString(36).slice(2)}`;
      const inFolder = probe.filePath.includes("{unique}");
      const file = path.join(PROJECT_ROOT, inFolder ? probe.filePath.replace("{unique}", unique) : probe.filePath.replace(/(\.tsx?)$/, `-${unique}$1`));
      written.push({ file, removes: inFolder ? path.dirname(file) : file });
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, probe.code);
    }
    const results = new Map((await eslint.lintFiles(written.flatMap((target) => (target ? [target.file] : [])))).map((result) => [result.filePath, result]));
    const reports: Reported[][] = [];
    for (const [index, probe] of probes.entries()) {
      const target = written[index];
      reports.push(report(target ? results.get(target.file) : (await eslint.lintText(probe.code, { filePath: path.join(PROJECT_ROOT, probe.filePath) }))[0]));
    }
    return reports;
  } finally {
    for (const target of written) if (target) rmSync(target.removes, { recursive: true, force: true });
  }
}

/**
 * A hang bound for the one pass over every probe, not a speed claim: 12 s alone on a quiet machine,
 * 58 and 62 s beside the property shards with a second run beside it (2026-12-05), where the
 * project's 60 s hook bound cut it short.
 */
const LINT_PASS_HUNG_AFTER_MS = 600_000;

describe("lint rules fire", () => {
  let fired: Reported[][];
  let passed: Reported[][];
  beforeAll(async () => {
    const reports = await lintEach(new ESLint({ cwd: PROJECT_ROOT }), [...CASES, ...CLEAN]);
    fired = reports.slice(0, CASES.length);
    passed = reports.slice(CASES.length);
  }, LINT_PASS_HUNG_AFTER_MS);

  it.each(CASES.map((probe, index) => ({ message: "", ...probe, index })))("$rule in $filePath $message", ({ rule, message, index }) => {
    const reported = fired[index]!;
    expect(reported.map((entry) => entry.rule)).toContain(rule);
    if (message) expect(reported.filter((entry) => entry.rule === rule).map((entry) => entry.message).join("\n")).toContain(message);
  });

  it.each(CLEAN.map((probe, index) => ({ ...probe, index })))("$name", ({ index }) => {
    expect(passed[index]).toEqual([]);
  });
});
