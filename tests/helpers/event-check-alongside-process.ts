import { setTimeout as delay } from "node:timers/promises";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Database } from "@/db/client";
import { checkDatabaseRows, writeLedgerEntry, type DatabaseCheck, type EventFailure, type RowWindow } from "./event-check";
import type { PdfCheckCoverage } from "./pdf-check";

/**
 * The event and PDF check of one database, run beside the tests that write it (started by
 * tests/helpers/event-check-alongside.ts at the lowest CPU priority, so it takes what the tests
 * leave idle): every PASS_EVERY_MS it checks the rows that transactions finished since its last
 * pass wrote, and when told to finish (the database's writers stopped) the rest, then writes the
 * database's one entry to the run's ledger. What it checks is what the check at the drop checks
 * (tests/helpers/event-check.ts); a row written again (an invoice paid or credited) is checked again.
 *
 * `node scripts/run.mjs tests/helpers/event-check-alongside-process.ts <database url>`
 */

/** How often it looks for rows finished since its last pass (EVENT_CHECK_ALONGSIDE_PASS_MS: a test's shorter). */
const PASS_EVERY_MS = Number(process.env.EVENT_CHECK_ALONGSIDE_PASS_MS ?? 15_000);
/** PostgreSQL's row `xmin` is the 32-bit part of a transaction id. */
const XID_SPACE = 2 ** 32;

const url = process.argv[2];
const send = process.send?.bind(process);
if (!url || !send) throw new Error("Usage: started by startEventCheckAlongside (tests/helpers/event-check-alongside.ts) with a database URL.");
const database = new URL(url).pathname.slice(1);
const client = postgres(url, { max: 1, onnotice: () => {} });
const db = drizzle(client) as unknown as Database;

let finishRequested = false;
const finishing = new Promise<void>((resolve) =>
  process.on("message", (message) => {
    if (message !== "finish") return;
    finishRequested = true;
    resolve();
  }),
);
// Its parent (the run's main process) gone: nothing will ask for the result.
process.on("disconnect", () => process.exit(1));

/** Every transaction with a lower id has ended (committed or not): the rows they wrote are final. */
async function horizon(): Promise<number> {
  const [row] = await client<{ horizon: string }[]>`select pg_snapshot_xmin(pg_current_snapshot())::text as horizon`;
  return Number(BigInt(row!.horizon) % BigInt(XID_SPACE));
}

/** The passes' sum: events are counted once each (a row is never written again); an invoice checked again counts once. */
type Totals = { validated: number; synthetic: number; failures: Map<string, EventFailure>; pdfs: PdfCheckCoverage | undefined; pdfMs: number; invoices: Map<string, string> };
const emptyTotals = (): Totals => ({ validated: 0, synthetic: 0, failures: new Map(), pdfs: undefined, pdfMs: 0, invoices: new Map() });
let totals = emptyTotals();

function add(pass: DatabaseCheck): void {
  totals.validated += pass.validated;
  totals.synthetic += pass.synthetic;
  // An invoice that fails again when checked again is listed once.
  for (const failure of pass.failures) totals.failures.set(`${failure.eventId} ${failure.as} ${failure.errors}`, failure);
  // How many finalized, and of how many shapes: the whole database's, as the last pass saw it.
  totals.pdfs = pass.pdfs;
  totals.pdfMs += pass.pdfs?.ms ?? 0;
  for (const document of pass.pdfDocuments) totals.invoices.set(document.id, document.accountId);
}

/** The invoices of each account checked so far: PDFS_PER_ACCOUNT bounds them over all passes. */
function checkedByAccount(): Record<string, number> {
  const byAccount: Record<string, number> = {};
  for (const account of totals.invoices.values()) byAccount[account] = (byAccount[account] ?? 0) + 1;
  return byAccount;
}

const check = (window?: RowWindow) => checkDatabaseRows(db, database, { window, pdfsChecked: checkedByAccount() });

let from = 0;
let wrapped = false;
while (!finishRequested) {
  const to = await horizon();
  if (to < from) {
    // The 32-bit ids wrapped around since the last pass: windows no longer order the rows.
    wrapped = true;
    break;
  }
  if (to > from) {
    add(await check({ from, to }));
    from = to;
    send({ passed: to });
  }
  await Promise.race([delay(PASS_EVERY_MS), finishing]);
}
await finishing;
if (wrapped) {
  // The whole database, as the check at its drop would read it.
  totals = emptyTotals();
  add(await check());
} else {
  add(await check({ from, to: null }));
}
writeLedgerEntry({
  database,
  validated: totals.validated,
  synthetic: totals.synthetic,
  failures: [...totals.failures.values()],
  pdfs: { ...totals.pdfs!, checked: totals.invoices.size, ms: totals.pdfMs },
});
await client.end({ timeout: 5 });
// Done: the channel closed by this side ends the process with code 0 (the parent waits for the exit).
process.removeAllListeners("disconnect");
process.disconnect();
