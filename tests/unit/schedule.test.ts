import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { parseDelay, RETRY_SCHEDULE } from "@/lib/webhooks/schedule";

/** schedule.ts with a fresh config(), which caches the environment on first call. */
async function freshSchedule(retryDelays: string) {
  vi.resetModules();
  vi.stubEnv("WEBHOOK_RETRY_DELAYS", retryDelays);
  return import("@/lib/webhooks/schedule");
}

afterEach(() => {
  vi.unstubAllEnvs();
});
// The graph freshSchedule loaded cached the stubbed environment (config()): the files after this one
// in the worker (vitest.config.ts, isolate: false) get a fresh graph.
afterAll(() => {
  vi.resetModules();
});

describe("the retry schedule", () => {
  it("is the spec's: 1 m, 5 m, 30 m, 2 h, 24 h after a failed first attempt (six attempts at most)", () => {
    expect([...RETRY_SCHEDULE]).toEqual(["1m", "5m", "30m", "2h", "24h"]);
    expect(RETRY_SCHEDULE.map((text) => parseDelay(text).ms)).toEqual([
      60_000,
      5 * 60_000,
      30 * 60_000,
      2 * 3_600_000,
      24 * 3_600_000,
    ]);
  });

  it("is in force unless WEBHOOK_RETRY_DELAYS overrides it (an empty variable counts as unset)", async () => {
    expect((await freshSchedule("")).retryDelays().map((delay) => delay.text)).toEqual([...RETRY_SCHEDULE]);
    expect((await freshSchedule("1s, 500ms,2h")).retryDelays()).toEqual([
      { text: "1s", ms: 1_000 },
      { text: "500ms", ms: 500 },
      { text: "2h", ms: 7_200_000 },
    ]);
  });
});

describe("parseDelay", () => {
  it.each([
    ["500ms", 500],
    ["1s", 1_000],
    ["5m", 300_000],
    ["2h", 7_200_000],
    ["1d", 86_400_000],
    [" 30m ", 1_800_000],
  ])("parses %j as %i ms", (text, ms) => {
    expect(parseDelay(text)).toEqual({ text: text.trim(), ms });
  });

  it.each(["", "5", "m", "1.5h", "-1m", "5 m", "1w", "10min"])("refuses %j", (text) => {
    expect(() => parseDelay(text)).toThrow(/Not a delay/);
  });
});

describe("hand-off event ids", () => {
  it("dedupe the first hand-off and sweeps within one hour, not across hours", async () => {
    const { deliveryRequestId } = await import("@/inngest/client");
    expect(deliveryRequestId("ed_prod_x", 1)).toBe("delivery-ed_prod_x-1");
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 22, 8, minute));
    expect(deliveryRequestId("ed_prod_x", 3, at(5))).toBe(deliveryRequestId("ed_prod_x", 3, at(55)));
    expect(deliveryRequestId("ed_prod_x", 3, at(5))).not.toBe(deliveryRequestId("ed_prod_x", 3, new Date(at(5).getTime() + 3_600_000)));
    expect(deliveryRequestId("ed_prod_x", 3, at(5))).not.toBe(deliveryRequestId("ed_prod_x", 4, at(5)));
  });
});
