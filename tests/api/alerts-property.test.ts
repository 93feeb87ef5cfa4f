import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Client, Json } from "../helpers/api";
import { newSandbox } from "../helpers/merchant";
import { eventually } from "../helpers/receiver";

/*
 * Usage alerts against a model (docs/usage-billing.md, "Alerts"): random thresholds, random
 * ingestion (concurrent requests of random batches) and month ends on the sandbox test clock. In
 * each period, each alert triggers exactly once if the period's usage reached its threshold and
 * never otherwise, with a value between the threshold and the period's usage; every trigger of an
 * ended period is resolved. ALERT_PROPERTY_RUNS sets the number of sequences (default 6).
 */

const RUNS = Number(process.env.ALERT_PROPERTY_RUNS ?? 6);

const stepArbitrary = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("ingest" as const), batches: fc.array(fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("month_end" as const) }) },
);

describe("usage alerts (property)", () => {
  it("each usage threshold fires exactly once per crossing per period", { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 3 }),
        fc.array(stepArbitrary, { minLength: 1, maxLength: 6 }).filter((steps) => steps.filter((s) => s.kind === "month_end").length <= 2),
        async (thresholds, steps) => {
          const sandbox = await newSandbox();
          const { account, ok } = sandbox;
          const client = sandbox.client as Client;
          const post = (path: string, body: unknown = {}) => ok(client.post(`/${account}${path}` as `/${string}/alerts`, body));
          const get = (path: string) => ok(client.get(`/${account}${path}` as `/${string}/alerts`));
          const meter = await post("/meters", { event_name: "tokens", display_name: "Tokens", aggregation: "sum", value_key: "value" });
          const customer = await post("/customers", { email: "model@example.com" });
          const alerts: Json[] = [];
          for (const threshold of thresholds) alerts.push(await post("/alerts", { type: "usage_threshold", meter: meter.id, threshold }));

          // The model: the usage of each period (by its start), in order.
          const periods: { start: number; usage: number }[] = [];
          const monthOf = (at: number) => Date.UTC(new Date(at).getUTCFullYear(), new Date(at).getUTCMonth(), 1);
          const now = async () => Date.parse((await get("/test-clock")).now);
          periods.push({ start: monthOf(await now()), usage: 0 });
          let sent = 0;
          for (const step of steps) {
            if (step.kind === "month_end") {
              const current = periods.at(-1)!.start;
              const next = Date.UTC(new Date(current).getUTCFullYear(), new Date(current).getUTCMonth() + 1, 1);
              await post("/test-clock/advance", { to: new Date(next + 60_000).toISOString() });
              periods.push({ start: next, usage: 0 });
              continue;
            }
            // The batches go at once, as concurrent requests.
            await Promise.all(
              step.batches.map((values) =>
                post("/usage-events/batch", { events: values.map((value) => ({ event_name: "tokens", customer: customer.id, identifier: `e-${sent++}`, payload: { value } })) }),
              ),
            );
            periods.at(-1)!.usage += step.batches.flat().reduce((a, b) => a + b, 0);
          }

          // Everything ingested has been evaluated once a throwaway alert that always triggers has.
          const barrier = await post("/alerts", { type: "credit_balance", customer: customer.id, below_atom: 1_000_000_000_000, currency: "usd" });
          await eventually(async () => (await get(`/alert-triggers?alert=${barrier.id}`)).items, (items: Json[]) => items.length === 1, 60_000);

          const lastStart = periods.at(-1)!.start;
          for (const alert of alerts) {
            const triggers: Json[] = (await get(`/alert-triggers?alert=${alert.id}&limit=100`)).items;
            // Usage of an earlier period is evaluated in it only if it arrived there; a period
            // whose usage never crossed has no trigger, one that did has exactly one.
            const expected = periods.filter((p) => p.usage >= alert.threshold).map((p) => new Date(p.start).toISOString());
            expect(triggers.map((t) => t.period_start).sort()).toEqual(expected.sort());
            for (const trigger of triggers) {
              const period = periods.find((p) => new Date(p.start).toISOString() === trigger.period_start)!;
              expect(trigger.value).toBeGreaterThanOrEqual(alert.threshold);
              expect(trigger.value).toBeLessThanOrEqual(period.usage);
              expect(trigger.resolved_at === null).toBe(period.start === lastStart);
            }
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
