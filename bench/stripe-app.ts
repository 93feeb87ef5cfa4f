import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { migratePostgres } from "@/db/migrate";
import { createFreshDatabase } from "@/tests/helpers/database";
import { startApp } from "@/tests/helpers/server";
import { startStripeStandIn, type StripeStandIn } from "@/tests/helpers/stripe-stand-in";

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
  const stripe = await startStripeStandIn();
  const database = await createFreshDatabase(label);
  const sql = postgres(database.url, { max: 2 });
  try {
    await migratePostgres(database.url);
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
    try {
      const db = await getDb();
      const account = (await createOrganization(db, { name: label })).sandboxAccountId;
      const { token } = await issueToken(db, { accountId: account, kind: "secret", name: "bench" });
      return await run({ app, stripe, sql, account, token });
    } finally {
      await app.stop();
    }
  } finally {
    await sql.end();
    await stripe.close();
    await database.drop();
  }
}
