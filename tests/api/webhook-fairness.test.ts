import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { rowsOf } from "@/lib/rows";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually, type Receiver, refusedUrl } from "../helpers/receiver";
import { receiverEndpoint } from "../helpers/webhooks";

// The app runs with a 1.5 s attempt deadline and 300 ms retries (tests/setup/api-server.ts), and
// the default WEBHOOK_ENDPOINT_CONCURRENCY of 16.
const ENDPOINT_CONCURRENCY = 16;
const receivers: Receiver[] = [];
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function endpointFor(merchant: Merchant, body: Record<string, unknown> = {}) {
  const { receiver, endpoint } = await receiverEndpoint(merchant, ["customer.created"]);
  receivers.push(receiver);
  if (Object.keys(body).length > 0) {
    const updated = await merchant.client.post(`/${merchant.accountId}/webhook-endpoints/${endpoint.id}`, body);
    expect(updated.status).toBe(200);
  }
  return { receiver, endpoint };
}

async function createCustomers(merchant: Merchant, count: number, label: string) {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, (_, j) => merchant.client.post("/customers", { email: `${label}-${i + j}@example.com` })),
    );
    for (const created of batch) {
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
  }
  return ids;
}

/**
 * The endpoint's deliveries delivered so far, and when each attempt at it started (ms, retries
 * too: they are paced alike): an attempt ended at `created`, `duration_ms` after it began.
 */
async function pacedAttempts(endpointId: string): Promise<{ delivered: number; starts: number[] }> {
  const db = await getDb();
  const { delivered } = rowsOf<{ delivered: number }>(
    await db.execute(sql`select count(*)::int as delivered from event_deliveries where webhook_endpoint_id = ${endpointId} and status = 'delivered'`),
  )[0]!;
  const rows = rowsOf<{ started: number }>(
    await db.execute(sql`
      select extract(epoch from a.created)::float8 * 1000 - a.duration_ms as started
      from delivery_attempts a join event_deliveries d on d.id = a.delivery_id
      where d.webhook_endpoint_id = ${endpointId} order by started`),
  );
  return { delivered, starts: rows.map((row) => Number(row.started)) };
}

const objectId = (request: { body: { data?: { object?: { id?: string } } } }) => request.body?.data?.object?.id;

describe("delivery fairness (embedded driver)", () => {
  it("keeps another account's endpoint prompt while one endpoint hangs with a backlog", async () => {
    const slow = await newMerchant();
    const { receiver: hanging, endpoint: hangingEndpoint } = await endpointFor(slow);
    hanging.respond("hang");
    // Stop the hanging endpoint's retries once the test is over (its deliveries then fail at once).
    cleanups.push(() => slow.client.post(`/${slow.accountId}/webhook-endpoints/${hangingEndpoint.id}`, { enabled: false }));
    await createCustomers(slow, 100, "backlog");
    await hanging.waitFor(ENDPOINT_CONCURRENCY, 10_000);

    const other = await newMerchant();
    const { receiver: healthy } = await endpointFor(other);
    const lags: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const [customerId] = await createCustomers(other, 1, `prompt-${i}`);
      const arrived = await healthy.first((request) => objectId(request) === customerId, 5_000);
      lags.push(arrived.receivedAt - started);
    }
    // Each within 5 s of its write (generous for a loaded machine; the old driver took minutes).
    expect(Math.max(...lags)).toBeLessThan(5_000);

    // Meanwhile the hanging endpoint never held more than its limit of attempts at once, and its
    // health says it is behind.
    const health = await slow.client.get(`/${slow.accountId}/webhook-endpoints/${hangingEndpoint.id}/health`);
    expect(health.status).toBe(200);
    expect(health.body.lag.in_flight).toBeLessThanOrEqual(ENDPOINT_CONCURRENCY);
    expect(health.body.lag.in_flight).toBeGreaterThan(0);
    expect(health.body.lag.due).toBeGreaterThan(0);
    expect(health.body.lag.oldest_due_seconds).toBeGreaterThan(0);
    const openAtOnce = hanging.requests.filter((request) => request.receivedAt <= hanging.requests[0]!.receivedAt + 1_000);
    expect(openAtOnce.length).toBeLessThanOrEqual(ENDPOINT_CONCURRENCY);
  }, 60_000);

  it("starts at most max_deliveries_per_second attempts per second for an endpoint", async () => {
    const merchant = await newMerchant();
    const { receiver, endpoint } = await endpointFor(merchant, { max_deliveries_per_second: 4 });
    const retrieved = await merchant.client.get(`/${merchant.accountId}/webhook-endpoints/${endpoint.id}`);
    expect(retrieved.body.max_deliveries_per_second).toBe(4);

    await createCustomers(merchant, 16, "paced");
    await receiver.waitFor(16, 20_000);
    // When the app started each attempt, by its own record: the receiver's clock is the test
    // worker's, whose event loop, stalled on a loaded machine, read 4 a second in bunches.
    // Read once every delivery's outcome is recorded (the receiver answers before the app writes it).
    const { starts: times } = await eventually(() => pacedAttempts(endpoint.id), (attempts) => attempts.delivered === 16, 20_000);
    // In any one-second window at most 4 (+1 for the window's closing edge).
    const busiest = Math.max(...times.map((start) => times.filter((t) => t >= start && t < start + 1_000).length));
    expect(busiest).toBeLessThanOrEqual(5);
    // 16 at 4/s: the last starts about 3.75 s after the first.
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(3_000);

    const health = await merchant.client.get(`/${merchant.accountId}/webhook-endpoints/${endpoint.id}/health`);
    const perMinute: Array<{ delivered: number; failed: number }> = health.body.lag.per_minute;
    expect(perMinute).toHaveLength(5);
    expect(perMinute.reduce((sum, minute) => sum + minute.delivered, 0)).toBe(16);
  }, 60_000);

  it("validates max_deliveries_per_second and lets it be cleared", async () => {
    const merchant = await newMerchant();
    const base = `/${merchant.accountId}/webhook-endpoints` as const;
    for (const bad of [0, -1, 1.5, "10", 10_001]) {
      const response = await merchant.client.post(base, { url: "https://example.com/h", events: ["*"], max_deliveries_per_second: bad });
      expectProblem(response, 422);
    }
    const created = await merchant.client.post(base, { url: await refusedUrl(), events: ["*"], max_deliveries_per_second: 25 });
    expect(created.body.max_deliveries_per_second).toBe(25);
    const cleared = await merchant.client.post(`${base}/${created.body.id}`, { max_deliveries_per_second: null });
    expect(cleared.body.max_deliveries_per_second).toBeNull();
  });
});
