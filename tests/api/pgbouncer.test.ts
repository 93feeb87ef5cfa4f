import { execFile } from "node:child_process";
import { promisify } from "node:util";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiRoot } from "../helpers/api";
import { createFreshDatabase } from "../helpers/database";
import { startPgBouncer, type RunningPgBouncer } from "../helpers/pgbouncer";
import { Receiver, type ReceivedRequest } from "../helpers/receiver";
import { PROJECT_ROOT, startApp, type RunningApp } from "../helpers/server";

const run = promisify(execFile);

/**
 * The app through a transaction-mode PgBouncer, as on Neon's or Supabase's pooled URL: migrations
 * on the direct URL, then the seed, the API, webhook delivery and the test clock on the pooled one.
 */
describe("through PgBouncer in transaction mode", () => {
  let database: Awaited<ReturnType<typeof createFreshDatabase>>;
  let bouncer: RunningPgBouncer;
  let pooledUrl: string;
  let receiver: Receiver;
  let app: RunningApp;

  beforeAll(async () => {
    database = await createFreshDatabase("pgbouncer");
    bouncer = await startPgBouncer();
    pooledUrl = bouncer.pooledUrl(database.url);
    receiver = await Receiver.start();
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
    await bouncer?.stop();
    await database?.drop();
  });

  it("migrates on the direct URL only: a pooled URL alone is refused with what to set", async () => {
    const refused = await run("npm", ["run", "--silent", "db:migrate"], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: pooledUrl, DATABASE_URL_UNPOOLED: "" },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining("set DATABASE_URL_UNPOOLED") });

    const applied = await run("npm", ["run", "--silent", "db:migrate"], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: pooledUrl, DATABASE_URL_UNPOOLED: database.url },
    });
    expect(applied.stdout).toContain("Migrations applied.");
  });

  it("seeds, serves the API, delivers webhooks and runs the test clock on the pooled URL", async () => {
    const { stdout } = await run("npm", ["run", "--silent", "seed", "--", "--json"], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: pooledUrl },
    });
    const seed = JSON.parse(stdout) as { secret_token: string; account_id: string; sandbox_secret_token: string; sandbox_account_id: string };
    app = await startApp({ DATABASE_URL: pooledUrl });
    const merchant = api(seed.secret_token, apiRoot(app.baseUrl));

    const endpoint = await merchant.post(`/${seed.account_id}/webhook-endpoints`, { url: receiver.url, events: ["customer.created"] });
    expect(endpoint.status, endpoint.text).toBe(201);
    receiver.useSecret(endpoint.body.secret);

    // Concurrent requests: more transactions than the pooler has server connections (3).
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) => merchant.post("/customers", { email: `pooled-${i}@example.com` })),
    );
    expect(created.map((response) => response.status)).toEqual(Array(12).fill(201));
    const events = await merchant.get(`/${seed.account_id}/events?event_type=customer.created&limit=100`);
    expect(events.status).toBe(200);
    expect(events.body.items).toHaveLength(12);

    // Read by the customers delivered, not by a count of requests: a delivery may come twice.
    const deliveredCustomers = (requests: ReceivedRequest[]) => new Set(requests.map((request) => request.body.data.object.id));
    const received = await receiver.waitFor((requests) => deliveredCustomers(requests).size >= created.length);
    expect(received.every((request) => request.signatureValid)).toBe(true);
    expect(deliveredCustomers(received)).toEqual(new Set(created.map((c) => c.body.id)));

    // Idempotent replay: the key's reservation and answer span transactions on different server connections.
    const first = await merchant.post("/customers", { email: "once@example.com" }, { headers: { "Idempotency-Key": "pooled-1" } });
    const replay = await merchant.post("/customers", { email: "once@example.com" }, { headers: { "Idempotency-Key": "pooled-1" } });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.id).toBe(first.body.id);

    // A month on the sandbox test clock: row locks, renewals, invoices and their events.
    const sandbox = api(seed.sandbox_secret_token, apiRoot(app.baseUrl));
    const product = await sandbox.post("/products", { name: "Pooled plan" });
    const price = await sandbox.post("/prices", { product: product.body.id, currency: "usd", unit_amount_atom: 1200, type: "recurring", recurring: { interval: "month" } });
    const customer = await sandbox.post("/customers", { email: "clock@example.com" });
    const subscription = await sandbox.post("/subscriptions", { customer: customer.body.id, items: [{ price: price.body.id }], default_payment_method: "pm_sandbox_succeeds" });
    expect(subscription.status, subscription.text).toBe(201);
    const clock = await sandbox.get(`/${seed.sandbox_account_id}/test-clock`);
    const advanced = await sandbox.post(`/${seed.sandbox_account_id}/test-clock/advance`, { to: new Date(Date.parse(clock.body.now) + 32 * 86_400_000).toISOString() });
    expect(advanced.status, advanced.text).toBe(200);
    expect(advanced.body.transitions_run).toBeGreaterThanOrEqual(1);

    // The app's connections really went through the pooler.
    const admin = postgres(bouncer.adminUrl, { max: 1, onnotice: () => {}, fetch_types: false });
    try {
      const stats = await admin.unsafe("SHOW STATS").simple();
      const ours = stats.find((row) => row.database === new URL(database.url).pathname.slice(1));
      expect(Number(ours?.total_xact_count ?? 0)).toBeGreaterThan(20);
    } finally {
      await admin.end();
    }
    expect(app.output()).not.toMatch(/prepared statement|unhandled error/);
  });
});
