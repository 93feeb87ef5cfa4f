import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import { createFreshDatabase } from "../tests/helpers/database";
import { finishEventCheck, startEventCheck } from "../tests/helpers/event-check";
import { PROJECT_ROOT, startApp } from "../tests/helpers/server";
import { startStripeStandIn } from "../tests/helpers/stripe-stand-in";
import { installTestCertificate } from "../tests/helpers/tls";
import { RATE_LIMIT_TEST_ENV, SIGNUP_TEST_ENV } from "../tests/setup/api-server";

/** The database's other sessions: state, what each waits on and for how long, which sessions block it, its query. */
async function databaseSessions(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<Record<string, unknown>[]>`
      select pid, application_name, state, wait_event_type || ':' || wait_event as wait,
        round(extract(epoch from now() - coalesce(xact_start, query_start)))::int as seconds,
        pg_blocking_pids(pid) as blocked_by, left(query, 300) as query
      from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() order by xact_start nulls last`;
    return rows.map((row) => JSON.stringify(row)).join("\n") || "(none)";
  } catch (error) {
    return `(could not be read: ${String(error)})`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * `npm run test:e2e:deployment`: the Playwright suite against "a deployment" it did not start,
 * exactly as `E2E_BASE_URL=<preview url> npm run test:e2e` runs it against Vercel. The stand-in is
 * a second production server (`next start`) configured as on Vercel without Inngest (VERCEL=1,
 * CRON_SECRET: first webhook attempts after the response, no pollers) on a fresh database,
 * migrated by `npm run db:migrate` as the deploy's build command does. The suite gets only its
 * URL: no DATABASE_URL, so it can reach the app through HTTP alone. Like a remote deployment, it
 * cannot deliver webhooks to the test machine (it refuses loopback and private addresses, as in
 * production), so a spec that needed a direct POST to a local receiver fails here: the webhook
 * steps receive through `npm run listen`. Arguments go to Playwright.
 */
installTestCertificate();
startEventCheck();
const database = await createFreshDatabase("deployment");
const dataDir = mkdtempSync(path.join(tmpdir(), "e2e-deployment-data-"));
// The deployment's Stripe (its STRIPE_API_BASE): the stand-in, which e2e/stripe-checkout.spec.ts
// steers over its control endpoints (E2E_STRIPE_STAND_IN_URL) and which delivers signed webhooks to it.
const stripe = await startStripeStandIn();
let exitCode = 1;
try {
  execFileSync("npm", ["run", "--silent", "db:migrate"], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, DATABASE_URL: database.url },
    stdio: "inherit",
  });
  const deployment = await startApp({
    DATABASE_URL: database.url,
    // Without SMTP_URL the deployment writes each email as a .eml file there: e2e/emails.spec.ts
    // reads them (E2E_MAIL_DIR), the one thing the suite reads besides the URL.
    BILLING_DATA_DIR: dataDir,
    STRIPE_API_BASE: stripe.url,
    VERCEL: "1",
    CRON_SECRET: randomBytes(24).toString("base64url"),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url"),
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
    // As in production, and explicitly so an exported variable cannot open loopback to it.
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false",
    // Lifted as for the in-process app: every spec signs up from this one address, and on a slow
    // machine a minute holds more than the default 30 sign-ups per address.
    ...RATE_LIMIT_TEST_ENV,
    // Every spec signs up its own organization on this one deployment (SIGNUP_TEST_ENV says why).
    ...SIGNUP_TEST_ENV,
  });
  console.log(`The deployment under test: ${deployment.baseUrl}`);
  try {
    const suiteEnv: NodeJS.ProcessEnv = { ...process.env, E2E_BASE_URL: deployment.baseUrl, E2E_MAIL_DIR: path.join(dataDir, "mail"), E2E_STRIPE_STAND_IN_URL: stripe.url };
    delete suiteEnv.DATABASE_URL;
    delete suiteEnv.E2E_APP_STARTED_HERE;
    exitCode = await new Promise<number>((resolve) => {
      const suite = spawn("npx", ["playwright", "test", ...process.argv.slice(2)], { cwd: PROJECT_ROOT, env: suiteEnv, stdio: "inherit" });
      suite.once("exit", (code) => resolve(code ?? 1));
    });
  } finally {
    // A spec that hung on the deployment (a page waiting for ever on a server action) leaves its
    // cause in the database's sessions: printed before the deployment stops and ends them.
    if (exitCode !== 0) console.log(`The deployment's database sessions when the suite ended:\n${await databaseSessions(database.url)}`);
    await deployment.stop();
    if (exitCode !== 0) console.log(`The deployment's output:\n${deployment.output()}`);
  }
} finally {
  await stripe.close();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
try {
  // Every event the deployment emitted, checked against the document (tests/helpers/event-check.ts).
  finishEventCheck("e2e against a deployment");
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  exitCode = 1;
}
process.exit(exitCode);
