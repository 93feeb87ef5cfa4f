import { parseArgs } from "node:util";
import { config } from "@/lib/config";
import { auditAccount, describeDifference, UnknownAccountError } from "./audit/money";

// `npm run --silent audit:money -- --account <account id> [--json]`: recomputes every invoice,
// credit note, customer balance and payment of the account from its events and the billing rules,
// against the PostgreSQL database at DATABASE_URL, read-only. Prints each difference (object,
// field, expected, found, rule) and exits 1, or a one-line summary and exits 0; 2 when it cannot
// run (usage, no such account, no database). docs/operations.md, "Auditing the money".
const usage = "Usage: npm run --silent audit:money -- --account <account id> [--json]";
let args;
try {
  args = parseArgs({ options: { account: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } } }).values;
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
  process.exit(2);
}
if (args.help) {
  console.log(usage);
  process.exit(0);
}
if (!args.account) {
  console.error(`--account is required.\n${usage}`);
  process.exit(2);
}
const { databaseUrl } = config();
if (!databaseUrl) {
  console.error("audit:money needs PostgreSQL (DATABASE_URL); the embedded database is for demos.");
  process.exit(2);
}

try {
  const { differences, counts } = await auditAccount({ databaseUrl, accountId: args.account });
  if (args.json) for (const difference of differences) process.stdout.write(`${JSON.stringify(difference)}\n`);
  else for (const difference of differences) console.log(describeDifference(difference));
  const covered =
    `${counts.invoices} invoices, ${counts.creditNotes} credit notes, ${counts.customers} customers, ${counts.balanceTransactions} balance transactions, ` +
    `${counts.paymentIntents} payment intents, ${counts.payments} payments, ${counts.refunds} refunds; ${counts.events} events`;
  const summary = differences.length === 0 ? `No differences in ${args.account} (${covered}).` : `${differences.length} difference${differences.length === 1 ? "" : "s"} in ${args.account} (${covered}).`;
  // With --json, stdout carries only the differences; the summary goes to stderr.
  (args.json ? console.error : console.log)(summary);
  process.exitCode = differences.length === 0 ? 0 : 1;
} catch (error) {
  console.error(error instanceof UnknownAccountError ? error.message : `The audit could not run: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
}
