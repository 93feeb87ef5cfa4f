import postgres from "postgres";
import { afterAll, beforeAll, inject } from "vitest";
import { newSandbox } from "./merchant";
import { connectStripe, stripeStandInClient } from "./stripe-stand-in";

/** The advisory lock's key: any constant no other code of the suite takes ("stripe" in ASCII). */
const STAND_IN_LOCK_KEY = 0x737472697065;

/**
 * Waiting for the files ahead in the queue is not a hang: each of the six files that drive the
 * stand-in may take minutes on a loaded machine, so the wait's bound is the run's, not a test's.
 */
const TURN_WAIT_MS = 30 * 60_000;

/**
 * The api project's Stripe stand-in (tests/setup/api-server.ts), held by the calling file alone
 * while it runs. Its faults, latency, delivery switches and recorded state belong to the whole
 * stand-in, not to one merchant, and several api files run at once (vitest.config.ts): the files
 * that drive it take turns through a PostgreSQL advisory lock on the api database, held by a
 * connection of their own (a file that dies drops the connection and with it the lock), while every
 * other file runs beside them.
 */
export function sharedStripeStandIn() {
  let holder: postgres.Sql | undefined;
  beforeAll(async () => {
    holder = postgres(inject("databaseUrl"), { max: 1, idle_timeout: 0, onnotice: () => {} });
    await holder`select pg_advisory_lock(${STAND_IN_LOCK_KEY})`;
  }, TURN_WAIT_MS);
  afterAll(async () => {
    await holder?.end();
  });
  return stripeStandInClient(inject("stripeStandInUrl"));
}

/**
 * A new sandbox account (newSandbox) connected to the api project's stand-in with Stripe test keys
 * of its own (`label` names the file in the stand-in's records; the random part keeps two
 * sandboxes' keys apart), a test clock being a sandbox's. Answers the sandbox, its keys (the
 * browser confirms with the publishable one) and the webhook endpoint the connection made.
 */
export async function newStripeSandbox(label: string) {
  const s = await newSandbox();
  const suffix = Math.random().toString(36).slice(2, 10);
  const keys = { processor: "stripe", secret_key: `sk_test_${label}${suffix}`, publishable_key: `pk_test_${label}${suffix}` };
  const endpoint = await connectStripe(s.client, s.account, keys);
  return { ...s, endpoint, keys };
}
