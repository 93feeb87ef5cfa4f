import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { and, asc, count, gt, not, sql } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Database } from "@/db/client";
import { openPgliteClient } from "@/db/pglite";
import * as schema from "@/db/schema";
import { isEventType, type EventType } from "@/lib/events/catalogue";
import { eventSchemaStem } from "@/lib/events-api/payloads";
import { serializeEvent, type EventRow } from "@/lib/events-api/serialize";
import { openApiDocument } from "@/lib/server/openapi";
import { webhookPayload } from "@/lib/webhooks/payload";
import { checkInvoicePdfs, type PdfCheckCoverage } from "./pdf-check";
import { SYNTHETIC_METADATA } from "./synthetic";

/**
 * The one check that every event a test suite emitted is what the OpenAPI document says: each
 * event of every database a run created, as its webhook body (against `<Type>WebhookEvent`) and
 * as the API's Event (against `<Type>Event`), validated with Ajv (JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1). A database is checked just before it is dropped (createFreshDatabase,
 * pgliteEventCheck) and its result written to the run's ledger; the suite's global teardown reads
 * the ledger (finishEventCheck) and fails the run on any invalid event, or when it validated none.
 */

const LEDGER_ENV = "EVENT_CHECK_LEDGER";
const BATCH = 2_000;
const MAX_LISTED = 40;

export type EventFailure = { type: string; eventId: string; database: string; as: "webhook" | "event"; errors: string };
type LedgerEntry = { database: string; validated: number; synthetic: number; failures: EventFailure[]; pdfs?: PdfCheckCoverage };

/** Rows a test or benchmark wrote by hand (db/synthetic-events.ts), not events the service emitted. */

const DOCUMENT_ID = "https://billing.invalid/openapi.json";
let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

/** The validator of one component of the document, compiled on first use. */
function validatorFor(component: string): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    // The document is not a schema, but its components are: addressed by JSON pointer.
    ajv.addSchema({ $id: DOCUMENT_ID, components: openApiDocument().components });
  }
  let validate = validators.get(component);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/${component}` });
    validators.set(component, validate);
  }
  return validate;
}

const describeErrors = (validate: ValidateFunction) =>
  (validate.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ""}`).join("; ");

/** Ajv's errors for `value` against a component of the document, or null when it is valid. */
export function componentErrors(component: string, value: unknown): string | null {
  const validate = validatorFor(component);
  return validate(value) ? null : describeErrors(validate);
}

/** Validates events (with their account's livemode) as webhook bodies and as API Events. */
export function validateEvents(rows: { row: EventRow; livemode: boolean }[], database: string): EventFailure[] {
  const failures: EventFailure[] = [];
  for (const { row, livemode } of rows) {
    if (!isEventType(row.type)) {
      failures.push({ type: row.type, eventId: row.id, database, as: "event", errors: "not a catalogue type" });
      continue;
    }
    const stem = eventSchemaStem(row.type as EventType);
    const checks = [
      { as: "webhook" as const, component: `${stem}WebhookEvent`, value: webhookPayload(row, livemode) },
      { as: "event" as const, component: `${stem}Event`, value: serializeEvent(row) },
    ];
    for (const check of checks) {
      // Through JSON, as receivers get it.
      const errors = componentErrors(check.component, JSON.parse(JSON.stringify(check.value)));
      if (errors !== null) failures.push({ type: row.type, eventId: row.id, database, as: check.as, errors });
    }
  }
  return failures;
}

/**
 * isSyntheticEvent (./synthetic.ts) as a condition on the events table: a database's check leaves
 * such rows in PostgreSQL and only counts them (exports-stream's million, read into the worker only
 * to be skipped, cost it more CPU than the rest of its check).
 */
const syntheticEventRow = sql`${schema.events.metadata} @> ${SYNTHETIC_METADATA}::jsonb`;

/** Every event of a database, in batches, checked; the result goes to the run's ledger. */
async function checkDatabase(db: Database, database: string, options: EventCheckOptions = {}): Promise<void> {
  const ledger = process.env[LEDGER_ENV];
  if (!ledger) return;
  const livemodeOf = new Map((await db.select({ id: schema.accounts.id, livemode: schema.accounts.livemode }).from(schema.accounts)).map((a) => [a.id, a.livemode]));
  let validated = 0;
  const [counted] = await db.select({ synthetic: count() }).from(schema.events).where(syntheticEventRow);
  const synthetic = counted?.synthetic ?? 0;
  const failures: EventFailure[] = [];
  for (let after = ""; ; ) {
    const rows = await db
      .select()
      .from(schema.events)
      .where(and(gt(schema.events.id, after), not(syntheticEventRow)))
      .orderBy(asc(schema.events.id))
      .limit(BATCH);
    if (rows.length === 0) break;
    failures.push(...validateEvents(rows.map((row) => ({ row, livemode: livemodeOf.get(row.accountId) ?? false })), database));
    validated += rows.length;
    after = rows.at(-1)!.id;
  }
  // Every finalized invoice's PDF too (the invoices issue): reported with the events.
  const { failures: pdfFailures, ...pdfs } = await checkInvoicePdfs(db, database, { sample: options.pdfSample });
  failures.push(...pdfFailures.map((failure) => ({ ...failure, type: "invoice PDF", as: "event" as const })));
  mkdirSync(ledger, { recursive: true });
  writeFileSync(
    path.join(ledger, `${database.replace(/[^\w.-]/g, "_")}-${process.pid}-${Date.now()}.json`),
    JSON.stringify({ database, validated, synthetic, failures, pdfs } satisfies LedgerEntry),
  );
}

/**
 * `pdfSample`: check the invoice PDFs of the database's every shape and feature and this many more
 * by the ids' hash, instead of all of them (tests/helpers/pdf-check.ts).
 */
export type EventCheckOptions = { pdfSample?: number };

/** A PostgreSQL database about to be dropped (tests/helpers/database.ts). Skips one never migrated. */
export async function checkPostgresEvents(url: string, options: EventCheckOptions = {}): Promise<void> {
  if (!process.env[LEDGER_ENV]) return;
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [table] = await client`select to_regclass('public.events') is not null as present`;
    if (!table?.present) return;
    await checkDatabase(drizzlePostgres(client) as unknown as Database, new URL(url).pathname.slice(1), options);
  } finally {
    await client.end({ timeout: 5 });
  }
}

/** An embedded (PGlite) data directory about to be removed, its app stopped. */
export async function checkPgliteEvents(dataDir: string): Promise<void> {
  if (!process.env[LEDGER_ENV]) return;
  const dir = path.join(dataDir, "pglite");
  try {
    readdirSync(dir);
  } catch {
    return;
  }
  const client = await openPgliteClient(dir);
  try {
    const [table] = (await client.query<{ present: boolean }>("select to_regclass('public.events') is not null as present")).rows;
    if (table?.present) await checkDatabase(drizzlePglite(client) as unknown as Database, `pglite:${dataDir}`);
  } finally {
    await client.close();
  }
}

/**
 * Whether the run was given test files (`vitest run tests/api/x.test.ts`, `playwright test
 * e2e/x.spec.ts`): those may emit no event at all. A whole suite that validated none fails.
 */
function ranChosenFiles(): boolean {
  return process.argv.slice(2).some((arg) => /\.(test|spec)\.ts$/.test(arg) || /^(tests|e2e)\//.test(arg));
}

/** Opens the run's ledger (a suite's global setup); the processes it starts inherit it. */
// Vitest runs the api and embedded projects' global setups in one process (and may load this
// module once per project): the ledger and who still uses it are process-wide, in the environment.
const USERS_ENV = "EVENT_CHECK_USERS";
const SUITES_ENV = "EVENT_CHECK_SUITES";

export function startEventCheck(): void {
  process.env[LEDGER_ENV] ??= mkdtempSync(path.join(tmpdir(), "event-check-"));
  process.env[USERS_ENV] = String(Number(process.env[USERS_ENV] ?? 0) + 1);
}

/**
 * Reads the ledger (a suite's global teardown, after its databases were dropped): throws with the
 * list of invalid events, or when no event at all was validated (a check of nothing proves nothing).
 */
export function finishEventCheck(suite: string): void {
  const ledger = process.env[LEDGER_ENV];
  if (!ledger) throw new Error(`${suite}: the event check never started (startEventCheck).`);
  const users = Number(process.env[USERS_ENV] ?? 1) - 1;
  const suites = [...(process.env[SUITES_ENV] ?? "").split("\n").filter(Boolean), suite];
  if (users > 0) {
    // Another project of this run still writes to the ledger: the last one to finish checks it all.
    process.env[USERS_ENV] = String(users);
    process.env[SUITES_ENV] = suites.join("\n");
    return;
  }
  delete process.env[USERS_ENV];
  delete process.env[SUITES_ENV];
  suite = suites.join(" and ");
  const entries = readdirSync(ledger).map((file) => JSON.parse(readFileSync(path.join(ledger, file), "utf8")) as LedgerEntry);
  rmSync(ledger, { recursive: true, force: true });
  delete process.env[LEDGER_ENV];
  const validated = entries.reduce((sum, entry) => sum + entry.validated, 0);
  const synthetic = entries.reduce((sum, entry) => sum + entry.synthetic, 0);
  const failures = entries.flatMap((entry) => entry.failures);
  const pdfNote = describePdfCheck(entries.flatMap((entry) => (entry.pdfs ? [entry.pdfs] : [])));
  const summary = `${suite}: ${validated} events of ${entries.length} databases validated against the OpenAPI document's event schemas (${synthetic} synthetic rows skipped)`;
  if (failures.length > 0) {
    const listed = failures
      .slice(0, MAX_LISTED)
      .map((failure) => `  ${failure.type} ${failure.eventId} (as ${failure.as}, ${failure.database}): ${failure.errors}`);
    const more = failures.length > MAX_LISTED ? [`  … and ${failures.length - MAX_LISTED} more`] : [];
    throw new Error([`${summary}: ${failures.length} invalid; ${pdfNote}.`, ...listed, ...more].join("\n"));
  }
  if (validated === 0 && !ranChosenFiles()) throw new Error(`${summary}: none, so the check proved nothing.`);
  console.log(`${summary}: ${validated === 0 ? "none (the chosen test files emitted none)" : "all valid"}; ${pdfNote}.`);
}

/**
 * The summary's account of the invoice PDFs (tests/helpers/pdf-check.ts): how many of how many
 * were checked, and which: a database checked whole (at most 300 of an account), or by its shapes,
 * features and a sample.
 */
export function describePdfCheck(checks: readonly PdfCheckCoverage[]): string {
  const sum = (of: readonly PdfCheckCoverage[], key: "checked" | "finalized" | "shapes" | "features") => of.reduce((total, check) => total + check[key], 0);
  const whole = checks.filter((check) => check.sample === null);
  const sampled = checks.filter((check) => check.sample !== null);
  const parts = [
    ...(whole.length > 0 ? [`${sum(whole, "checked")} of ${sum(whole, "finalized")} in ${whole.length} databases checked whole (at most 300 of an account, and every shape)`] : []),
    ...sampled.map(
      (check) =>
        `${check.checked} of ${check.finalized} in a database checked by shape and sample (the first of each of its ${check.shapes} shapes — currency, locale, line count, taxes, credit notes, paid version — and of its ${check.features} optional blocks, and ${check.sample} by the ids' hash)`,
    ),
  ];
  const seconds = (checks.reduce((total, check) => total + check.ms, 0) / 1000).toFixed(1);
  return `${sum(checks, "checked")} finalized invoices' PDFs checked in ${seconds} s (tests/helpers/pdf-check.ts)${parts.length > 0 ? `: ${parts.join("; ")}` : ""}`;
}
