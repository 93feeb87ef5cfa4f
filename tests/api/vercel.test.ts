import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiRoot } from "../helpers/api";
import { createMigratedDatabase } from "../helpers/database";
import { expectProblem } from "../helpers/problem";
import { eventually, Receiver } from "../helpers/receiver";
import { PROJECT_ROOT, startApp, type RunningApp } from "../helpers/server";

const run = promisify(execFile);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * On Vercel (VERCEL=1) without Inngest: a delivery's first attempt runs after the response, and
 * nothing else happens until Vercel Cron calls the cron routes. Its own database and app, so that
 * no other driver can do the work this test expects cron to do.
 */
describe("on Vercel without Inngest", () => {
  const cronSecret = randomBytes(24).toString("base64url");
  let database: Awaited<ReturnType<typeof createMigratedDatabase>>;
  let sql: postgres.Sql;
  let receiver: Receiver;
  let app: RunningApp;
  let seed: { secret_token: string; account_id: string; sandbox_secret_token: string; sandbox_account_id: string };

  beforeAll(async () => {
    database = await createMigratedDatabase("vercel");
    sql = postgres(database.url, { max: 1, onnotice: () => {} });
    const { stdout } = await run("npm", ["run", "--silent", "seed", "--", "--json"], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: database.url },
    });
    seed = JSON.parse(stdout);
    receiver = await Receiver.start();
    // A short tick: were a ticker started, it would run what this test leaves to cron within 200 ms.
    // A 4 s attempt deadline: long enough that a request's answer cannot have waited for a hanging attempt.
    app = await startApp({ DATABASE_URL: database.url, VERCEL: "1", CRON_SECRET: cronSecret, CLOCK_TICK_MS: "200", WEBHOOK_TIMEOUT_MS: "4000" });
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
    await sql?.end();
    await database?.drop();
  });

  const cron = (job: "deliveries" | "clock", authorization?: string) =>
    api(undefined, apiRoot(app.baseUrl)).offContract.get(`/cron/${job}`, authorization ? { headers: { Authorization: authorization } } : {});

  it("says at start that cron drives retries and time, and starts no poller", () => {
    expect(app.output()).toContain("Serverless (VERCEL=1) without Inngest");
  });

  it("attempts a delivery right after the response, and retries it only when cron calls with the secret", async () => {
    const merchant = api(seed.secret_token, apiRoot(app.baseUrl));
    const endpoint = await merchant.post(`/${seed.account_id}/webhook-endpoints`, { url: receiver.url, events: ["customer.created"] });
    expect(endpoint.status).toBe(201);
    receiver.useSecret(endpoint.body.secret);
    // The first attempt hangs until its deadline (4 s) …
    receiver.respond("hang");

    const created = await merchant.post("/customers", { email: "after@example.com" });
    const answeredAt = Date.now();
    expect(created.status).toBe(201);
    const [event] = (await merchant.get(`/${seed.account_id}/events?event_type=customer.created`)).body.items;

    const [first] = await receiver.waitFor(1, 30_000);
    expect(first!.headers["x-webhook-attempt"]).toBe("1");
    expect(first!.signatureValid).toBe(true);
    const failed = await eventually(
      async () => (await merchant.get(`/${seed.account_id}/events/${event.id}/deliveries`)).body[0],
      (delivery) => delivery.status === "failed",
    );
    expect(failed).toMatchObject({ attempt_count: 1, next_retry_at: expect.any(String) });
    // … and the response did not wait for it: the app gave the hanging attempt up (at its deadline)
    // only after the request had been answered. An order of events, not a speed: a status read
    // "soon after" the response failed on a loaded machine where those reads took over 4 s.
    const abandonedAt = await eventually(async () => first!.abandonedAt, (at) => at !== undefined);
    expect(abandonedAt).toBeGreaterThan(answeredAt);

    // The retry delay (300 ms in tests) passes many times over: no timer retries it.
    receiver.respond({ status: 200, body: "ok" });
    await pause(2_000);
    expect(receiver.requests).toHaveLength(1);

    // Vercel Cron's call: a missing or wrong secret is refused and attempts nothing.
    expectProblem(await cron("deliveries"), 401, /CRON_SECRET/);
    expectProblem(await cron("deliveries", `Bearer ${cronSecret}x`), 401, /Wrong cron secret/);
    expectProblem(await cron("deliveries", cronSecret), 401, /CRON_SECRET in the Authorization header \(scheme: Bearer\)/);
    expect(receiver.requests).toHaveLength(1);

    const pass = await cron("deliveries", `Bearer ${cronSecret}`);
    expect(pass.status, pass.text).toBe(200);
    expect(pass.body).toMatchObject({ object: "cron_run", job: "deliveries", attempted: 1, delivered: 1 });
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]!.headers["x-webhook-attempt"]).toBe("2");
    const delivered = (await merchant.get(`/${seed.account_id}/events/${event.id}/deliveries`)).body[0];
    expect(delivered).toMatchObject({ status: "delivered", attempt_count: 2 });

    // Nothing is due any more: a second pass attempts nothing.
    expect((await cron("deliveries", `Bearer ${cronSecret}`)).body).toMatchObject({ attempted: 0 });
  });

  it("runs time-driven transitions only when cron calls with the secret", async () => {
    const sandbox = api(seed.sandbox_secret_token, apiRoot(app.baseUrl));
    const product = await sandbox.post("/products", { name: "Cron plan" });
    const price = await sandbox.post("/prices", { product: product.body.id, currency: "usd", unit_amount_atom: 900, type: "one_time" });
    expect(price.status, price.text).toBe(201);
    const session = await sandbox.post("/checkout/sessions", { mode: "payment", line_items: [{ price: price.body.id }], success_url: "https://shop.example.com/thanks" });
    expect(session.status, session.text).toBe(201);

    // A day passes on the sandbox account's clock without anything running what fell due (the
    // test clock API would run it itself): the session's expiry is now due.
    await sql`update accounts set clock_offset_ms = ${25 * 3_600_000} where id = ${seed.sandbox_account_id}`;
    await pause(1_500);
    expect((await sandbox.get(`/checkout/sessions/${session.body.id}`)).body.status).toBe("open");

    expectProblem(await cron("clock"), 401);
    expectProblem(await cron("clock", "Bearer wrong-secret-wrong-secret"), 401);
    expect((await sandbox.get(`/checkout/sessions/${session.body.id}`)).body.status).toBe("open");

    const tick = await cron("clock", `Bearer ${cronSecret}`);
    expect(tick.status, tick.text).toBe(200);
    expect(tick.body).toMatchObject({ object: "cron_run", job: "clock", accounts_left: 0 });
    expect(tick.body.transitions_run).toBeGreaterThanOrEqual(1);
    expect((await sandbox.get(`/checkout/sessions/${session.body.id}`)).body.status).toBe("expired");
  });
});

describe("a Vercel deployment that cannot work refuses to start", () => {
  it("names DATABASE_URL when it is missing (no embedded database on Vercel)", async () => {
    await expect(startApp({ VERCEL: "1", DATABASE_URL: "", CRON_SECRET: randomBytes(24).toString("hex") })).rejects.toThrow(
      /On Vercel \(VERCEL=1\) the embedded database cannot work: set DATABASE_URL/,
    );
  });

  it("names CRON_SECRET when neither cron nor Inngest could run retries and time", async () => {
    await expect(startApp({ VERCEL: "1", CRON_SECRET: "" })).rejects.toThrow(/set CRON_SECRET/);
  });
});
