import { InngestTestEngine } from "@inngest/test";
import { asc, eq, TransactionRollbackError } from "drizzle-orm";
import { NextRequest } from "next/server";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { Transaction } from "@/db/client";
import { deliveryAttempts, eventDeliveries, webhookEndpoints } from "@/db/schema";
import type { OverduePage } from "@/lib/webhooks/overdue";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { Receiver } from "../helpers/receiver";

// The global setup shortens the schedule for the app's own driver (WEBHOOK_RETRY_DELAYS). These
// attempts run in this worker: unset the override so the function is tested with the spec's
// schedule itself, in a module graph of this file's own whose config() reads the environment so
// (the files before it in this worker may have read it already). Sleeps are mocked, so the 24
// hours cost nothing. The files after it get a fresh graph again, with the environment as it was.
vi.stubEnv("WEBHOOK_RETRY_DELAYS", "");
vi.resetModules();
const { getDb } = await import("@/db/client");
const { deliveryRequested } = await import("@/inngest/client");
const { deliverWebhook } = await import("@/inngest/functions/deliver-webhook");
const { sweepDeliveries } = await import("@/inngest/functions/sweep-deliveries");
const { newId } = await import("@/lib/ids");
const { attemptDelivery } = await import("@/lib/webhooks/attempt");
const { findOverdueDeliveries, OVERDUE_AFTER_MS } = await import("@/lib/webhooks/overdue");
const { RETRY_SCHEDULE, retryDelays } = await import("@/lib/webhooks/schedule");
const { encryptSecret, generateSigningSecret } = await import("@/lib/secrets");
// Its commits announce deliveries as the server's do (tests/setup/worker-env.ts wired the graph it loaded).
(await import("@/lib/server/wiring")).wire();
afterAll(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

const SPEC_SLEEPS = ["1m", "5m", "30m", "2h", "24h"];
const HOUR_MS = 3_600_000;

beforeAll(() => {
  expect(retryDelays().map((delay) => delay.text)).toEqual(SPEC_SLEEPS);
});

let receiver: Receiver;
beforeEach(async () => {
  receiver = await Receiver.start();
});
afterEach(async () => {
  await receiver.close();
});

/**
 * A delivery of a real customer.created event to `receiver`, driven by nobody yet. The endpoint
 * is created after the customer, so the app's fan-out makes no delivery of its own for it, and the
 * row is due in an hour: invisible to the app's embedded driver (it takes rows due now), while the
 * scheduled mode of attemptDelivery only asks that something be scheduled.
 */
async function newDelivery(dueAt = new Date(Date.now() + HOUR_MS)) {
  const merchant = await newMerchant();
  const customer = await merchant.client.post("/customers", { email: "payer@example.com" });
  expect(customer.status).toBe(201);
  const events = await merchant.client.get(`/${merchant.accountId}/events?aggregate_id=${customer.body.id}`);
  const eventId: string = events.body.items[0].id;

  const secret = generateSigningSecret();
  receiver.useSecret(secret);
  const db = await getDb();
  const endpointId = newId("webhookEndpoint");
  await db.insert(webhookEndpoints).values({
    id: endpointId,
    accountId: merchant.accountId,
    url: receiver.url,
    events: ["*"],
    secretCiphertext: encryptSecret(secret),
  });
  const deliveryId = newId("eventDelivery");
  await db.insert(eventDeliveries).values({
    id: deliveryId,
    accountId: merchant.accountId,
    eventId,
    webhookEndpointId: endpointId,
    dueAt,
  });
  return { deliveryId, eventId, endpointId, accountId: merchant.accountId };
}

/** A new engine per run (an engine caches step results), with every possible sleep mocked. */
function deliveryRun(deliveryId: string, firstAttempt = 1) {
  return new InngestTestEngine({
    function: deliverWebhook,
    events: [{ name: deliveryRequested.name, data: { deliveryId, firstAttempt, endpointId: "whe_prod_any", throttleKey: deliveryId } }],
    // Unmocked sleeps never return in the test engine; ids beyond the schedule cost nothing.
    steps: Array.from({ length: 10 }, (_, i) => ({ id: `retry-${i + 1}`, handler: () => null })),
  }).execute();
}

type Run = Awaited<ReturnType<typeof deliveryRun>>;

const stepId = (idOrOptions: unknown) =>
  typeof idOrOptions === "string" ? idOrOptions : (idOrOptions as { id: string }).id;

/** The run's steps in the order the function reached them. */
function stepSequence({ ctx }: Run): string[] {
  const { run, sleep } = ctx.step;
  return [
    ...run.mock.calls.map((args, i) => ({ id: stepId(args[0]), order: run.mock.invocationCallOrder[i]! })),
    ...sleep.mock.calls.map((args, i) => ({ id: stepId(args[0]), order: sleep.mock.invocationCallOrder[i]! })),
  ]
    .sort((a, b) => a.order - b.order)
    .map((step) => step.id);
}

const sleeps = ({ ctx }: Run) => ctx.step.sleep.mock.calls.map((args) => args[1]);

async function deliveryRow(deliveryId: string) {
  const db = await getDb();
  const [row] = await db.select().from(eventDeliveries).where(eq(eventDeliveries.id, deliveryId));
  return row!;
}

async function attemptLog(deliveryId: string) {
  const db = await getDb();
  return db
    .select({ attempt: deliveryAttempts.attemptNumber, outcome: deliveryAttempts.outcome, status: deliveryAttempts.responseStatus })
    .from(deliveryAttempts)
    .where(eq(deliveryAttempts.deliveryId, deliveryId))
    .orderBy(asc(deliveryAttempts.attemptNumber));
}

describe("deliver-webhook (Inngest function)", () => {
  it("retries a failing endpoint on exactly the spec's schedule, then fails it after six attempts", async () => {
    const { deliveryId, eventId } = await newDelivery();
    receiver.respond({ status: 500, body: "down" });

    const run = await deliveryRun(deliveryId);

    expect(run.error).toBeUndefined();
    expect(run.result).toEqual({ result: "failed", attempt: 6, error: "The endpoint answered HTTP 500." });
    expect(stepSequence(run)).toEqual([
      "attempt-1", "retry-1",
      "attempt-2", "retry-2",
      "attempt-3", "retry-3",
      "attempt-4", "retry-4",
      "attempt-5", "retry-5",
      "attempt-6",
    ]); // prettier-ignore
    expect(sleeps(run)).toEqual(SPEC_SLEEPS);
    expect(sleeps(run)).toEqual([...RETRY_SCHEDULE]);

    expect(await deliveryRow(deliveryId)).toMatchObject({
      status: "failed",
      attemptCount: 6,
      nextRetryAt: null,
      dueAt: null,
      deliveredAt: null,
      responseStatus: 500,
      error: "The endpoint answered HTTP 500.",
    });
    expect(await attemptLog(deliveryId)).toEqual([
      ...[1, 2, 3, 4, 5].map((attempt) => ({ attempt, outcome: "retry", status: 500 })),
      { attempt: 6, outcome: "failed", status: 500 },
    ]);
    expect(receiver.requests).toHaveLength(6);
    expect(receiver.requests.map((r) => r.headers["x-webhook-attempt"])).toEqual(["1", "2", "3", "4", "5", "6"]);
    for (const request of receiver.requests) {
      expect(request.signatureValid).toBe(true);
      expect(request.headers["x-webhook-delivery-id"]).toBe(deliveryId);
      expect(request.headers["x-webhook-event-id"]).toBe(eventId);
    }
  });

  it("stops after the first attempt on a 4xx: no sleep, failed permanently", async () => {
    const { deliveryId } = await newDelivery();
    receiver.respond({ status: 404 });

    const run = await deliveryRun(deliveryId);

    expect(run.result).toEqual({ result: "failed", attempt: 1, error: expect.stringMatching(/HTTP 404; 4xx responses are not retried/) });
    expect(stepSequence(run)).toEqual(["attempt-1"]);
    expect(sleeps(run)).toEqual([]);
    expect(await deliveryRow(deliveryId)).toMatchObject({
      status: "failed",
      attemptCount: 1,
      nextRetryAt: null,
      dueAt: null,
      responseStatus: 404,
      error: expect.stringMatching(/404/),
    });
    expect(receiver.requests).toHaveLength(1);
  });

  it("delivers on a 2xx after one attempt", async () => {
    const { deliveryId } = await newDelivery();
    receiver.respond({ status: 200, body: "ok" });

    const run = await deliveryRun(deliveryId);

    expect(run.result).toEqual({ result: "delivered", attempt: 1, status: 200 });
    expect(stepSequence(run)).toEqual(["attempt-1"]);
    expect(sleeps(run)).toEqual([]);
    expect(await deliveryRow(deliveryId)).toMatchObject({
      status: "delivered",
      attemptCount: 1,
      deliveredAt: expect.any(Date),
      responseStatus: 200,
      error: null,
      nextRetryAt: null,
      dueAt: null,
    });
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.signatureValid).toBe(true);
  });

  it("sleeps the first delay after a 5xx and stops once delivered", async () => {
    const { deliveryId } = await newDelivery();
    receiver.respond((_, index) => (index === 0 ? { status: 503 } : { status: 204 }));

    const run = await deliveryRun(deliveryId);

    expect(run.result).toEqual({ result: "delivered", attempt: 2, status: 204 });
    expect(stepSequence(run)).toEqual(["attempt-1", "retry-1", "attempt-2"]);
    expect(sleeps(run)).toEqual(["1m"]);
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: "delivered", attemptCount: 2, responseStatus: 204, dueAt: null });
    expect(receiver.requests).toHaveLength(2);
  });

  it("makes no request when a replayed run asks for an attempt already made", async () => {
    const { deliveryId } = await newDelivery();
    receiver.respond({ status: 200 });
    expect((await deliveryRun(deliveryId)).result).toMatchObject({ result: "delivered", attempt: 1 });

    // A duplicate of the first hand-off, after the delivery succeeded.
    const replay = await deliveryRun(deliveryId, 1);
    expect(replay.result).toEqual({ result: "skipped", reason: "finished" });
    expect(sleeps(replay)).toEqual([]);
    expect(receiver.requests).toHaveLength(1);
    expect(await deliveryRow(deliveryId)).toMatchObject({ status: "delivered", attemptCount: 1 });
  });

  it("skips a stale hand-off while a retry is pending, and resumes at the next attempt", async () => {
    const { deliveryId } = await newDelivery();
    receiver.respond((_, index) => (index === 0 ? { status: 500 } : { status: 200 }));
    expect(await attemptDelivery(deliveryId, { mode: "scheduled", attempt: 1 })).toMatchObject({ result: "retry", attempt: 1 });

    const stale = await deliveryRun(deliveryId, 1);
    expect(stale.result).toEqual({ result: "skipped", reason: "not_due" });
    expect(receiver.requests).toHaveLength(1);

    // What the sweep sends for this row: firstAttempt = attempt_count + 1.
    const resumed = await deliveryRun(deliveryId, 2);
    expect(resumed.result).toEqual({ result: "delivered", attempt: 2, status: 200 });
    expect(stepSequence(resumed)).toEqual(["attempt-2"]);
    expect(receiver.requests.map((r) => r.headers["x-webhook-attempt"])).toEqual(["1", "2"]);
  });
});

describe("overdue deliveries (the sweep's query)", () => {
  /**
   * Rows inserted and queried in one transaction that is rolled back: the app's embedded driver,
   * which attempts every row due now, never sees them.
   */
  async function withUncommitted<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const db = await getDb();
    let result: T | undefined;
    await db
      .transaction(async (tx) => {
        result = await work(tx);
        tx.rollback();
      })
      .catch((error: unknown) => {
        if (!(error instanceof TransactionRollbackError)) throw error;
      });
    return result as T;
  }

  it("finds a row long past due, resuming at the attempt after the last one made, and nothing else", async () => {
    const { eventId, endpointId, accountId } = await newDelivery();
    const now = Date.now();
    const row = (id: string, dueAt: Date | null, attemptCount: number) => ({
      id,
      accountId,
      eventId,
      webhookEndpointId: endpointId,
      status: "failed" as const,
      attemptCount,
      dueAt,
    });
    const ids = {
      overdue: newId("eventDelivery"),
      neverHandedOver: newId("eventDelivery"),
      justDue: newId("eventDelivery"),
      future: newId("eventDelivery"),
      finished: newId("eventDelivery"),
    };

    const found = await withUncommitted(async (tx) => {
      await tx.insert(eventDeliveries).values([
        row(ids.overdue, new Date(now - HOUR_MS), 2),
        { ...row(ids.neverHandedOver, new Date(now - 2 * HOUR_MS), 0), status: "pending" as const },
        row(ids.justDue, new Date(now - OVERDUE_AFTER_MS + 60_000), 1),
        row(ids.future, new Date(now + HOUR_MS), 1),
        row(ids.finished, null, 6),
      ]);
      return findOverdueDeliveries({ executor: tx });
    });

    const mine = found.deliveries.filter((d) => Object.values(ids).includes(d.deliveryId));
    expect(mine).toEqual([
      { deliveryId: ids.neverHandedOver, firstAttempt: 1, endpointId, maxPerSecond: null },
      { deliveryId: ids.overdue, firstAttempt: 3, endpointId, maxPerSecond: null },
    ]);
  });

  it("pages in (due_at, id) order", async () => {
    const { eventId, endpointId, accountId } = await newDelivery();
    // Older than anything another test can leave behind, so these lead the order.
    const ids = [newId("eventDelivery"), newId("eventDelivery"), newId("eventDelivery")];
    const dueAt = [new Date("2000-01-01T00:00:00Z"), new Date("2000-01-01T00:00:00Z"), new Date("2000-01-01T00:00:01Z")];

    const pages = await withUncommitted(async (tx) => {
      await tx.insert(eventDeliveries).values(
        ids.map((id, i) => ({ id, accountId, eventId, webhookEndpointId: endpointId, attemptCount: i, dueAt: dueAt[i]! })),
      );
      const first: OverduePage = await findOverdueDeliveries({ executor: tx, limit: 2 });
      const second: OverduePage = await findOverdueDeliveries({ executor: tx, limit: 2, after: first.next });
      return [first, second];
    });

    const endpoint = { endpointId, maxPerSecond: null };
    expect(pages[0]!.deliveries).toEqual([
      { deliveryId: ids[0], firstAttempt: 1, ...endpoint },
      { deliveryId: ids[1], firstAttempt: 2, ...endpoint },
    ]);
    expect(pages[0]!.next).toEqual({ dueAt: "2000-01-01T00:00:00.000Z", id: ids[1] });
    expect(pages[1]!.deliveries[0]).toEqual({ deliveryId: ids[2], firstAttempt: 3, ...endpoint });
  });
});

describe("sweep-deliveries (Inngest function)", () => {
  it("hands each overdue delivery over with an event id that names the attempt and the hour", async () => {
    const tick = Date.UTC(2026, 10, 22, 8, 35);
    const hour = Math.floor(tick / 3_600_000);
    const page: OverduePage = {
      deliveries: [
        { deliveryId: "ed_prod_a", firstAttempt: 1, endpointId: "whe_prod_x", maxPerSecond: null },
        { deliveryId: "ed_prod_b", firstAttempt: 4, endpointId: "whe_prod_y", maxPerSecond: 1 },
      ],
      next: null,
    };
    const run = await new InngestTestEngine({
      function: sweepDeliveries,
      events: [{ name: "inngest/scheduled.timer", data: {}, ts: tick }],
      steps: [
        { id: "find-overdue-0", handler: () => page },
        { id: "hand-over-0", handler: () => ({ ids: ["a", "b"] }) },
      ],
    }).execute();

    expect(run.error).toBeUndefined();
    expect(run.result).toEqual({ handedOver: 2 });
    const [[id, events]] = run.ctx.step.sendEvent.mock.calls as unknown as [[string, unknown[]]];
    expect(id).toBe("hand-over-0");
    expect(events).toEqual([
      expect.objectContaining({
        name: deliveryRequested.name,
        id: `delivery-ed_prod_a-1-sweep-${hour}`,
        data: { deliveryId: "ed_prod_a", firstAttempt: 1, endpointId: "whe_prod_x", throttleKey: "ed_prod_a" },
      }),
      expect.objectContaining({
        name: deliveryRequested.name,
        id: `delivery-ed_prod_b-4-sweep-${hour}`,
        // The swept delivery keeps its endpoint's concurrency key and rate (1/s: one key).
        data: { deliveryId: "ed_prod_b", firstAttempt: 4, endpointId: "whe_prod_y", throttleKey: "whe_prod_y:0" },
      }),
    ]);
  });
});

// In-process, with real Requests: the app under test was built before this route may have existed,
// and its environment has no Inngest configuration either way.
describe("the Inngest serve route", () => {
  const url = "http://127.0.0.1/api/inngest";
  const context = { params: Promise.resolve({}) };

  it("answers a 404 problem while Inngest is not configured", async () => {
    const route = await import("@/app/api/inngest/route");
    for (const method of ["GET", "POST", "PUT"] as const) {
      const response = await route[method](new NextRequest(url, { method }), context);
      const text = await response.text();
      expectProblem({ status: response.status, headers: response.headers, body: JSON.parse(text), text }, 404, /Inngest is not configured/);
    }
  });

  it("serves the five functions once Inngest is configured (delivery, sweep, clock tick, due transitions, emails)", async () => {
    // A fresh module graph, so that config() reads the stubbed environment.
    vi.resetModules();
    vi.stubEnv("INNGEST_DEV", "1");
    try {
      const route = await import("@/app/api/inngest/route");
      const response = await route.GET(new NextRequest(url), context);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ mode: "dev", function_count: 5 });
    } finally {
      vi.stubEnv("INNGEST_DEV", "");
    }
  });
});
