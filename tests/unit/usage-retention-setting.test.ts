import { describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";

/** USAGE_EVENT_RETENTION_DAYS (docs/usage-billing.md, "Retention"): 400 by default, 0 forever, never under the 35-day dedup promise. */
describe("USAGE_EVENT_RETENTION_DAYS", () => {
  it.each([
    [undefined, 400],
    ["0", 0],
    ["35", 35],
    ["730", 730],
  ])("%s → %s days", (value, days) => {
    expect(loadConfig(value === undefined ? {} : { USAGE_EVENT_RETENTION_DAYS: value }).usageEventRetentionDays).toBe(days);
  });

  it.each(["1", "34", "-1", "36501", "1.5", "forever"])("refuses %s", (value) => {
    expect(() => loadConfig({ USAGE_EVENT_RETENTION_DAYS: value })).toThrow();
  });
});
