import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiRoot } from "../helpers/api";
import { isolatedDatabase } from "../helpers/isolated-database";
import { Receiver, type ReceivedRequest } from "../helpers/receiver";
import { startApp, type RunningApp } from "../helpers/server";
import { CLOCK_TEST_ENV } from "../setup/api-server";

/**
 * Two `next start` processes on one database of their own, each with its embedded delivery driver (the
 * global setup's app is not involved). The webhook settings (1.5 s deadline, 300 ms retries) come
 * from the environment the global setup put in place.
 */
/** Attempts in flight per endpoint, across both instances. */
const ENDPOINT_CAP = 6;
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let apps: RunningApp[] = [];

beforeAll(async () => {
  database = await isolatedDatabase("instances");
  apps = await Promise.all(
    [0, 1].map(() => startApp({ DATABASE_URL: database.url, WEBHOOK_ENDPOINT_CONCURRENCY: String(ENDPOINT_CAP), ...CLOCK_TEST_ENV })),
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(apps.map((app) => app.stop()));
  await database?.drop();
}, 60_000);

const clients = () => apps.map((app) => api(database.token, apiRoot(app.baseUrl)));

/** Creates `count` customers through the given instances in turn, `parallel` at a time. */
async function createCustomers(label: string, count: number, through: number[] = [0, 1], parallel = 10) {
  const all = clients();
  for (let i = 0; i < count; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - i) }, (_, j) => i + j);
    const created = await Promise.all(
      batch.map((n) => all[through[n % through.length]!]!.post("/customers", { email: `${label}-${n}@example.com` })),
    );
    for (const response of created) expect(response.status).toBe(201);
  }
}

async function newEndpoint(receiver: Receiver): Promise<string> {
  const [a] = clients();
  const created = await a!.post(`/${database.accountId}/webhook-endpoints`, { url: receiver.url, events: ["customer.created"] });
  expect(created.status).toBe(201);
  receiver.useSecret(created.body.secret);
  return created.body.id;
}

const deliveryIds = (requests: ReceivedRequest[]) => new Set(requests.map((request) => String(request.headers["x-webhook-delivery-id"])));

describe("two app instances on one database", () => {
  it("deliver every delivery exactly once between them", async () => {
    const receivers = await Promise.all([Receiver.start(), Receiver.start()]);
    try {
      for (const receiver of receivers) await newEndpoint(receiver);
      await createCustomers("once", 120);
      for (const receiver of receivers) {
        const requests = await receiver.waitFor((r) => deliveryIds(r).size >= 120, 30_000);
        // Every (delivery, attempt) arrived once, and every delivery's first attempt succeeded.
        const seen = requests.map((request) => `${request.headers["x-webhook-delivery-id"]}#${request.headers["x-webhook-attempt"]}`);
        expect(new Set(seen).size).toBe(seen.length);
        expect(requests).toHaveLength(120);
        expect(requests.every((request) => request.headers["x-webhook-attempt"] === "1" && request.signatureValid)).toBe(true);
      }
      // Nothing more arrives later (no second instance sending the same deliveries late).
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      for (const receiver of receivers) expect(receiver.requests).toHaveLength(120);
    } finally {
      await Promise.all(receivers.map((receiver) => receiver.close()));
    }
  }, 90_000);

  it("hold an endpoint's cap on attempts in flight between them", async () => {
    const receiver = (await Receiver.start()).respond({ status: 200, body: "ok", delayMs: 300 });
    try {
      await newEndpoint(receiver);
      await createCustomers("cap", 40);
      const requests = await receiver.waitFor((r) => deliveryIds(r).size >= 40 && r.every((request) => request.answeredAt), 30_000);
      expect(requests).toHaveLength(40);
      // 40 attempts of 300 ms through two instances: never more than the cap at once, together.
      const open = Receiver.maxOpenAtOnce(requests);
      expect(open).toBeLessThanOrEqual(ENDPOINT_CAP);
      expect(open).toBeGreaterThanOrEqual(ENDPOINT_CAP - 2);
    } finally {
      await receiver.close();
    }
  }, 90_000);

  it("lose nothing when one is killed (SIGKILL) mid-load", async () => {
    const receiver = await Receiver.start();
    try {
      const endpointId = await newEndpoint(receiver);
      // Load through both instances; one dies while their deliveries are under way, and the load
      // goes on through the survivor.
      await createCustomers("crash-a", 60);
      await apps[0]!.kill();
      await createCustomers("crash-b", 60, [1]);
      // Everything committed is delivered, by the survivor for whatever the dead one had claimed
      // (at least once: an attempt cut by the kill may arrive again with the next attempt number).
      const expected = await countDeliveries(endpointId);
      expect(expected).toBe(120);
      const requests = await receiver.waitFor((r) => deliveryIds(r).size >= expected, 45_000);
      expect(deliveryIds(requests).size).toBe(expected);
      const perAttempt = requests.map((request) => `${request.headers["x-webhook-delivery-id"]}#${request.headers["x-webhook-attempt"]}`);
      expect(new Set(perAttempt).size).toBe(perAttempt.length);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});

/** The endpoint's deliveries (one per customer created). */
async function countDeliveries(endpointId: string): Promise<number> {
  const postgres = (await import("postgres")).default;
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ n: number }[]>`
      select count(*)::int as n from event_deliveries where webhook_endpoint_id = ${endpointId}`;
    return row!.n;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
