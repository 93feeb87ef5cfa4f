import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { migratePostgres } from "@/db/migrate";
import { createFreshDatabase } from "../tests/helpers/database";
import { finishEventCheck, startEventCheck } from "../tests/helpers/event-check";
import { startApp } from "../tests/helpers/server";
import { startStripeStandIn } from "../tests/helpers/stripe-stand-in";
import { installTestCertificate } from "../tests/helpers/tls";
import { RATE_LIMIT_TEST_ENV, SIGNUP_TEST_ENV, WEBHOOK_TEST_ENV } from "../tests/setup/api-server";

/**
 * Without E2E_BASE_URL: a fresh PostgreSQL database and the built app on it, delivering webhooks
 * to loopback receivers (trusting the run's certificate). Returns the teardown.
 */
export default async function globalSetup() {
  // `npm run test:e2e:deployment` made the certificate already, and its deployment trusts that one.
  if (!process.env.TEST_TLS_KEY) installTestCertificate();
  if (process.env.E2E_BASE_URL) return undefined;
  // Every spec signs up its own organization (SIGNUP_TEST_ENV says why).
  Object.assign(process.env, WEBHOOK_TEST_ENV, RATE_LIMIT_TEST_ENV, SIGNUP_TEST_ENV, {
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url"),
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
  });
  startEventCheck();
  const database = await createFreshDatabase("e2e");
  await migratePostgres(database.url);
  // Without SMTP_URL the app writes each email as a .eml file: into a directory of this run's (e2e/emails.spec.ts reads them).
  const dataDir = mkdtempSync(path.join(tmpdir(), "e2e-data-"));
  // The app's Stripe (e2e/stripe-checkout.spec.ts): the stand-in, which the specs steer over its control endpoints.
  const stripe = await startStripeStandIn();
  const app = await startApp({ DATABASE_URL: database.url, BILLING_DATA_DIR: dataDir, STRIPE_API_BASE: stripe.url });
  process.env.E2E_BASE_URL = app.baseUrl;
  process.env.E2E_STRIPE_STAND_IN_URL = stripe.url;
  process.env.E2E_MAIL_DIR = path.join(dataDir, "mail");
  // It delivers to this machine's loopback receivers (fixtures.ts `deliversHere`); a deployment does not.
  process.env.E2E_APP_STARTED_HERE = "1";
  return async () => {
    await app.stop();
    await stripe.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    finishEventCheck("e2e");
  };
}
