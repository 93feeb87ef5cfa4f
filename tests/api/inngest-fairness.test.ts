import { InngestTestEngine } from "@inngest/test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/client";
import { eventDeliveries } from "@/db/schema";
import { deliveryRequested, inngest, throttleKeyOf } from "@/inngest/client";
import { deliverWebhook, INNGEST_ENDPOINT_CONCURRENCY } from "@/inngest/functions/deliver-webhook";
import { inngestJobs } from "@/lib/jobs/inngest";
import { newMerchant } from "../helpers/merchant";
import { eventually, Receiver } from "../helpers/receiver";

type RegisteredConfig = { concurrency?: unknown; throttle?: unknown };
/** What the app registers with Inngest for the function (the serve route's payload). */
function registered(): RegisteredConfig {
  const fn = deliverWebhook as unknown as {
    getConfig(options: { baseUrl: URL; appPrefix: string }): RegisteredConfig[];
  };
  return fn.getConfig({ baseUrl: new URL("http://127.0.0.1/api/inngest"), appPrefix: "billing-service" })[0]!;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("deliver-webhook fairness (Inngest mode)", () => {
  it("registers a concurrency limit per endpoint next to the one per delivery, and a throttle per key", () => {
    expect(INNGEST_ENDPOINT_CONCURRENCY).toBe(16);
    const config = registered();
    expect(config.concurrency).toEqual([
      { key: "event.data.deliveryId", limit: 1 },
      { key: "event.data.endpointId", limit: INNGEST_ENDPOINT_CONCURRENCY },
    ]);
    expect(config.throttle).toEqual({ key: "event.data.throttleKey", limit: 1, period: "1s", burst: 1 });
  });

  it("spreads an endpoint of rate r over exactly r throttle keys of one start per second each; no rate, no throttle", () => {
    const keys = Array.from({ length: 30 }, (_, i) => throttleKeyOf(`ed_${i}`, "whe_prod_slow", 3));
    const uses = new Map<string, number>();
    for (const key of keys) uses.set(key, (uses.get(key) ?? 0) + 1);
    expect([...uses.keys()].sort()).toEqual(["whe_prod_slow:0", "whe_prod_slow:1", "whe_prod_slow:2"]);
    expect([...uses.values()]).toEqual([10, 10, 10]);
    // Without a rate each delivery is its own key: nothing ever waits for the throttle.
    expect(new Set(Array.from({ length: 5 }, (_, i) => throttleKeyOf(`ed_${i}`, "whe_prod_fast", null))).size).toBe(5);
  });

  it("hands committed deliveries over with their endpoint and its rate", async () => {
    const merchant = await newMerchant();
    const receiver = await Receiver.start();
    try {
      const base = `/${merchant.accountId}/webhook-endpoints` as const;
      const paced = await merchant.client.post(base, { url: receiver.url, events: ["customer.created"], max_deliveries_per_second: 2 });
      const free = await merchant.client.post(base, { url: receiver.url, events: ["customer.created"] });
      expect(paced.body.max_deliveries_per_second).toBe(2);
      const customer = await merchant.client.post("/customers", { email: "rate@example.com" });
      expect(customer.status).toBe(201);
      const db = await getDb();
      const rows = await db
        .select({ id: eventDeliveries.id, endpointId: eventDeliveries.webhookEndpointId })
        .from(eventDeliveries)
        .where(eq(eventDeliveries.accountId, merchant.accountId));
      expect(rows).toHaveLength(2);

      const send = vi.spyOn(inngest, "send").mockResolvedValue({ ids: [] });
      await inngestJobs.deliveriesCreated(rows.map((row) => row.id));
      const [[sent]] = send.mock.calls as unknown as [[Array<{ name: string; id: string; data: Record<string, unknown> }>]];
      const byEndpoint = new Map(sent.map((event) => [event.data.endpointId, event]));
      const pacedDelivery = rows.find((row) => row.endpointId === paced.body.id)!.id;
      const freeDelivery = rows.find((row) => row.endpointId === free.body.id)!.id;
      expect(byEndpoint.get(paced.body.id)).toMatchObject({
        name: deliveryRequested.name,
        id: `delivery-${pacedDelivery}-1`,
        data: { deliveryId: pacedDelivery, firstAttempt: 1, endpointId: paced.body.id, throttleKey: expect.stringMatching(new RegExp(`^${paced.body.id}:[01]$`)) },
      });
      expect(byEndpoint.get(free.body.id)).toMatchObject({
        data: { deliveryId: freeDelivery, firstAttempt: 1, endpointId: free.body.id, throttleKey: freeDelivery },
      });

      // And the function run on such an event attempts that delivery (already delivered by the
      // app's embedded driver by now, or claimed: either way never sent twice for attempt 1).
      await receiver.waitFor(2, 10_000);
      // Received is not yet recorded: until the app has written the attempt's outcome, the delivery
      // is leased and the function would skip it as `not_due` (seen once on a quiet machine).
      await eventually(
        async () => (await db.select({ dueAt: eventDeliveries.dueAt }).from(eventDeliveries).where(eq(eventDeliveries.id, pacedDelivery)))[0]?.dueAt,
        (dueAt) => dueAt === null,
      );
      const run = await new InngestTestEngine({
        function: deliverWebhook,
        events: [{ name: deliveryRequested.name, data: byEndpoint.get(paced.body.id)!.data }],
      }).execute();
      expect(run.result).toEqual({ result: "skipped", reason: "finished" });
      expect(receiver.requests.filter((request) => request.headers["x-webhook-delivery-id"] === pacedDelivery)).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
