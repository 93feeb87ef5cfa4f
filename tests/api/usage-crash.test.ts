import { and, eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, inject, it } from "vitest";
import { getDb } from "@/db/client";
import { usageEvents } from "@/db/schema";
import { api, apiRoot, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { startApp, type RunningApp } from "../helpers/server";

/**
 * kill -9 of the app while batches are being ingested: every identifier a 200 acknowledged as
 * `accepted` is stored, the aggregates equal the stored events, and sending every batch again
 * (to the shared test app) counts each event exactly once.
 */
/** The identifiers the account has stored, after checking that every acknowledged one is among them. */
async function storedAcknowledged(accountId: string, acknowledged: Set<string>): Promise<Set<string>> {
  const db = await getDb();
  const rows = await db.select({ identifier: usageEvents.identifier }).from(usageEvents).where(eq(usageEvents.accountId, accountId));
  const stored = new Set(rows.map((row) => row.identifier));
  expect(acknowledged.size).toBeGreaterThan(0);
  for (const identifier of acknowledged) expect(stored.has(identifier), identifier).toBe(true);
  return stored;
}

describe("usage ingestion across a crash", () => {
  const apps: RunningApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
  });

  it("loses no acknowledged event and counts every event once after the retries", { timeout: 120_000 }, async () => {
    const merchant = await newMerchant();
    const customer = (await merchant.client.post("/customers", { email: "crash-usage@example.com" })).body.id;
    const meter = (await merchant.client.post("/meters", { event_name: "crash", display_name: "Crash", aggregation: "sum" })).body;
    const victim = await startApp({ DATABASE_URL: inject("databaseUrl") });
    apps.push(victim);
    const client = api(merchant.secret.token, apiRoot(victim.baseUrl));

    const batches: Json[][] = Array.from({ length: 40 }, (_, b) =>
      Array.from({ length: 200 }, (_, i) => ({ event_name: "crash", customer, identifier: `b${b}-${i}`, payload: { value: (i % 7) + 1 } })),
    );
    const acknowledged = new Set<string>();
    let sent = 0;
    const senders = [0, 1, 2, 3].map(async (lane) => {
      for (let b = lane; b < batches.length; b += 4) {
        sent++;
        const answer = await client.post("/usage-events/batch", { events: batches[b] }).catch(() => null);
        if (!answer || answer.status !== 200) return;
        for (const item of answer.body.items) if (item.status === "accepted") acknowledged.add(item.identifier);
      }
    });
    // Kill once some batches were acknowledged, while others are in flight.
    while (acknowledged.size < 1000 && sent < batches.length) await new Promise((resolve) => setTimeout(resolve, 20));
    await victim.kill();
    await Promise.all(senders);

    const stored = await storedAcknowledged(merchant.accountId, acknowledged);
    const db = await getDb();
    const [storedSum] = await db
      .select({ total: sql<string>`coalesce(sum(${usageEvents.value}), 0)::text` })
      .from(usageEvents)
      .where(and(eq(usageEvents.accountId, merchant.accountId), eq(usageEvents.meterId, meter.id)));
    const usage = async () => (await merchant.client.get(`/customers/${customer}/usage?meter=${meter.id}`)).body.value;
    expect(await usage()).toBe(Number(storedSum!.total));

    // Every batch again: what was stored is duplicate, the rest accepted, and each counts once.
    for (const batch of batches) {
      const answer = await merchant.client.post("/usage-events/batch", { events: batch });
      for (const item of answer.body.items) {
        expect(item.status).toBe(stored.has(item.identifier) ? "duplicate" : "accepted");
      }
    }
    const expected = batches.flat().reduce((total, event) => total + event.payload.value, 0);
    expect(await usage()).toBe(expected);
  });

  // One-event requests are group-committed (lib/usage/group-commit.ts): many requests share one
  // statement, and each answers only after it committed.
  it("loses no acknowledged one-event request while groups are being committed, and counts every event once after the retries", { timeout: 120_000 }, async () => {
    const merchant = await newMerchant();
    const customer = (await merchant.client.post("/customers", { email: "crash-single@example.com" })).body.id;
    const meter = (await merchant.client.post("/meters", { event_name: "crash_single", display_name: "Crash single", aggregation: "sum" })).body;
    const victim = await startApp({ DATABASE_URL: inject("databaseUrl") });
    apps.push(victim);
    const client = api(merchant.secret.token, apiRoot(victim.baseUrl));

    const events = Array.from({ length: 3000 }, (_, i) => ({ event_name: "crash_single", customer, identifier: `s${i}`, payload: { value: (i % 5) + 1 } }));
    const acknowledged = new Set<string>();
    let next = 0;
    // 32 requests in flight at a time: enough to make groups of several events.
    const lanes = Array.from({ length: 32 }, async () => {
      while (next < events.length) {
        const event = events[next++]!;
        const answer = await client.post("/usage-events", event).catch(() => null);
        if (!answer) return;
        if (answer.status === 200 && answer.body.status === "accepted") acknowledged.add(event.identifier);
      }
    });
    // Kill once some events were acknowledged, while others are in flight.
    while (acknowledged.size < 500 && next < events.length) await new Promise((resolve) => setTimeout(resolve, 20));
    await victim.kill();
    await Promise.all(lanes);

    const stored = await storedAcknowledged(merchant.accountId, acknowledged);
    const usage = async () => (await merchant.client.get(`/customers/${customer}/usage?meter=${meter.id}`)).body.value;

    // Every event again (to the shared app): what was stored is a duplicate, the rest accepted, each counted once.
    for (let from = 0; from < events.length; from += 1000) {
      const answer = await merchant.client.post("/usage-events/batch", { events: events.slice(from, from + 1000) });
      for (const item of answer.body.items) expect(item.status).toBe(stored.has(item.identifier) ? "duplicate" : "accepted");
    }
    expect(await usage()).toBe(events.reduce((total, event) => total + event.payload.value, 0));
  });
});
