import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { prepareContractValidators } from "../helpers/api-contract";
import { createMigratedDatabase } from "../helpers/database";
import { finishEventCheck, startEventCheck } from "../helpers/event-check";
import { startApp } from "../helpers/server";
import { startStripeStandIn } from "../helpers/stripe-stand-in";
import { installTestCertificate } from "../helpers/tls";

declare module "vitest" {
  export interface ProvidedContext {
    apiBaseUrl: string;
    databaseUrl: string;
    /** The shared app's Stripe (STRIPE_API_BASE): the stand-in of tests/helpers/stripe-stand-in.ts. */
    stripeStandInUrl: string;
  }
}

/** Short schedule for tests: the spec's schedule itself is asserted in the Inngest function tests. */
export const TEST_RETRY_DELAYS = "300ms,300ms,300ms,300ms,300ms";

/** How the app and the test processes deliver webhooks in tests: to loopback, quickly. */
export const WEBHOOK_TEST_ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  WEBHOOK_RETRY_DELAYS: TEST_RETRY_DELAYS,
  WEBHOOK_TIMEOUT_MS: "1500",
};

/**
 * The embedded clock ticker runs every second in the test app (15 s by default), so a test can see
 * it renew something in real time; business time itself passes through the test clock API.
 */
export const CLOCK_TEST_ENV = { CLOCK_TICK_MS: "1000" };

/**
 * The shared test app serves every test file at once from one address: its rate limits are lifted
 * (tests/api/rate-limits.test.ts starts its own apps with small limits to test them).
 */
export const RATE_LIMIT_TEST_ENV = { RATE_LIMIT_PER_SECOND: "1000000", RATE_LIMIT_SIGN_IN_PER_MINUTE: "1000000", RATE_LIMIT_PAGES_PER_MINUTE: "1000000" };

/**
 * Every test file makes its organizations by signing up, on an app where users exist already:
 * with SIGNUP's production default (`invite` once a user exists) all but the first would be
 * refused. The test apps sign up openly; tests/api/teams.test.ts starts its own apps to test
 * `invite`, `closed` and the default (docs/teams.md).
 */
export const SIGNUP_TEST_ENV = { SIGNUP: "open" };

/**
 * The shared test app bills its merchants, as an operator who turned platform billing on does
 * (it is off by default): the billing-status tests read it, and the merchants the helpers make in
 * the test workers are enrolled. tests/api/platform-billing-off.test.ts starts its own app with
 * the default.
 */
export const PLATFORM_BILLING_TEST_ENV = { PLATFORM_BILLING: "on" };

/**
 * One fresh PostgreSQL database and one `next start` on it for the whole api project. The webhook
 * settings go into this process's environment too, so the test workers (forked from it) run
 * in-process attempts exactly as the app does, and trust the receivers' certificate.
 */
export default async function setup(project: TestProject) {
  installTestCertificate();
  startEventCheck();
  Object.assign(process.env, WEBHOOK_TEST_ENV, RATE_LIMIT_TEST_ENV, PLATFORM_BILLING_TEST_ENV, SIGNUP_TEST_ENV, {
    WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url"),
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
  });
  // The test client's response validators, compiled here once rather than by the first file of each worker at once.
  prepareContractValidators();
  const database = await createMigratedDatabase("api");
  // The app's Stripe: a stand-in on loopback, driven by the tests over its control endpoints.
  const stripe = await startStripeStandIn();
  const app = await startApp({ DATABASE_URL: database.url, ...CLOCK_TEST_ENV, STRIPE_API_BASE: stripe.url });
  project.provide("apiBaseUrl", app.baseUrl);
  project.provide("databaseUrl", database.url);
  project.provide("stripeStandInUrl", stripe.url);
  return async () => {
    await app.stop();
    await stripe.close();
    if (process.env.DEBUG_APP_OUTPUT) console.log(app.output());
    await database.drop();
    // Every event the project's databases hold, checked against the document (the ledger of their drops).
    finishEventCheck("api tests");
  };
}
