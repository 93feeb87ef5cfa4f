import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { startApp } from "@/tests/helpers/server";
import { startStripeStandIn, type StripeStandIn } from "@/tests/helpers/stripe-stand-in";
import { benchDatabase } from "./http";

/** What a Stripe benchmark runs against: the app, its database, the stand-in, and a sandbox account with a secret token. */
export type StripeBench = {
  app: Awaited<ReturnType<typeof startApp>>;
  stripe: StripeStandIn;
  sql: postgres.Sql;
  account: string;
  token: string;
};

/**
 * The built app (`next start`) on a fresh, migrated database, its Stripe API the tests' stand-in
 * (`STRIPE_API_BASE`), rate limits lifted, with one organization's sandbox account and a secret
 * token of it (bench/stripe-renewals.ts, bench/stripe-webhooks.ts). Everything is torn down after
 * `run`, whatever it throws.
 */
export async function withStripeBenchApp<T>(label: string, env: Record<string, string>, run: (bench: StripeBench) => Promise<T>): Promise<T> {
  // The benches' fresh, migrated database (bench/http.ts), which closes what is registered with it and drops itself.
  const database = await benchDatabase(label);
  const stripe = await startStripeStandIn();
  database.closeLater(() => stripe.close());
  try {
    process.env.DATABASE_URL = database.url;
    const { getDb } = await import("@/db/client");
    const { createOrganization } = await import("@/lib/organizations/service");
    const { issueToken } = await import("@/lib/auth/tokens");
    const app = await startApp({
      DATABASE_URL: database.url,
      STRIPE_API_BASE: stripe.url,
      RATE_LIMIT_PER_SECOND: "100000000",
      NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url"),
      ...env,
    });
    database.closeLater(() => app.stop());
    const db = await getDb();
    const account = (await createOrganization(db, { name: label })).sandboxAccountId;
    const { token } = await issueToken(db, { accountId: account, kind: "secret", name: "bench" });
    return await run({ app, stripe, sql: database.sql, account, token });
  } finally {
    await database.cleanUp();
  }
}
