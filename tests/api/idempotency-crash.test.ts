import { and, eq, sql as dsql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, describe, expect, inject, it } from "vitest";
import { getDb } from "@/db/client";
import { customers, idempotencyKeys } from "@/db/schema";
import { REDACTED_SECRET } from "@/lib/idempotency/service";
import { api, type ApiResponse, apiRoot } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { startApp, type RunningApp } from "../helpers/server";

const withKey = (key: string) => ({ headers: { "Idempotency-Key": key } });

async function customersWithEmail(accountId: string, email: string): Promise<number> {
  const db = await getDb();
  const [row] = await db
    .select({ count: dsql<number>`count(*)::int` })
    .from(customers)
    .where(and(eq(customers.accountId, accountId), eq(customers.email, email)));
  return row!.count;
}

/**
 * kill -9 of an app process with requests in flight; the retries go to the shared test app on the
 * same database and must either replay the committed answer or perform the request, exactly once.
 */
describe("Idempotency-Key across a crash", () => {
  const apps: RunningApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
  });

  it("a request killed while in flight (mid-transaction) runs exactly once on retry, at once", { timeout: 90_000 }, async () => {
    const merchant = await newMerchant();
    const victim = await startApp({ DATABASE_URL: inject("databaseUrl") });
    apps.push(victim);
    // Hold the merchant's account row: the request's first insert waits on it, inside its transaction.
    const blocker = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {} });
    const holding = blocker.begin(async (tx) => {
      await tx`select id from accounts where id = ${merchant.accountId} for update`;
      const inFlight = api(merchant.secret.token, apiRoot(victim.baseUrl))
        .post("/customers", { email: "crash@example.com" }, withKey("crash-1"))
        .catch(() => null);
      for (let i = 0; i < 100; i++) {
        const [waiting] = await tx`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%idempotency_keys%'`;
        if (waiting!.n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await victim.kill();
      await inFlight;
    });
    await holding;
    await blocker.end();

    const retry = await merchant.client.post("/customers", { email: "crash@example.com" }, withKey("crash-1"));
    expect(retry.status, retry.text).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    const again = await merchant.client.post("/customers", { email: "crash@example.com" }, withKey("crash-1"));
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.id).toBe(retry.body.id);
    expect(await customersWithEmail(merchant.accountId, "crash@example.com")).toBe(1);
  });

  it("after a kill -9 amid 30 concurrent keyed creations, every retry answers the one customer its key made", { timeout: 120_000 }, async () => {
    const merchant = await newMerchant();
    const victim = await startApp({ DATABASE_URL: inject("databaseUrl") });
    apps.push(victim);
    const client = api(merchant.secret.token, apiRoot(victim.baseUrl));
    const keys = Array.from({ length: 30 }, (_, i) => `drill-${i}`);
    const inFlight = keys.map((key) => client.post("/customers", { email: `${key}@example.com` }, withKey(key)).catch(() => null));
    // Kill once the first answers arrive: some requests done, some mid-way, some not started.
    await Promise.race(inFlight);
    await victim.kill();
    const firstAnswers = (await Promise.all(inFlight)).filter((r): r is ApiResponse => r !== null && r.status === 201);

    for (const key of keys) {
      const retry = await merchant.client.post("/customers", { email: `${key}@example.com` }, withKey(key));
      // Never stuck: a retry gets the answer (replayed or new), not 409 in use, not 500.
      expect(retry.status, `${key}: ${retry.text}`).toBe(201);
      expect(await customersWithEmail(merchant.accountId, `${key}@example.com`)).toBe(1);
      const answered = firstAnswers.find((r) => r.body.email === `${key}@example.com`);
      if (answered) expect(retry.body.id).toBe(answered.body.id);
    }
    const db = await getDb();
    const stuck = await db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.accountId, merchant.accountId), eq(idempotencyKeys.state, "in_progress")));
    expect(stuck).toEqual([]);
  });
});

describe("secrets in idempotent replays", () => {
  it("stores no API token or signing secret: a replay says the secret was shown once", async () => {
    const merchant = await newMerchant();
    const endpoint = { url: "https://example.com/hooks", events: ["customer.created"] };
    const first = await merchant.client.post(`/${merchant.accountId}/webhook-endpoints`, endpoint, withKey("endpoint-1"));
    expect(first.status, first.text).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_|^[A-Za-z0-9_-]{20,}/);
    const replay = await merchant.client.post(`/${merchant.accountId}/webhook-endpoints`, endpoint, withKey("endpoint-1"));
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.id).toBe(first.body.id);
    expect(replay.body.secret).toBe(REDACTED_SECRET);

    const db = await getDb();
    const rows = await db.select().from(idempotencyKeys).where(eq(idempotencyKeys.accountId, merchant.accountId));
    for (const row of rows) expect(row.responseBody).not.toContain(first.body.secret);
  });
});
