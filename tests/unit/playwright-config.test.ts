import { describe, expect, it } from "vitest";
import config from "../../playwright.config";

describe("the browser tests' configuration", () => {
  it("retries a failed test only to record its trace: a test that passes on its retry fails the run", () => {
    // playwright.config.ts: the trace is recorded on the first retry, not for every test.
    expect(config.use?.trace).toMatchObject({ mode: "on-first-retry" });
    expect(config.retries).toBe(1);
    expect(config.failOnFlakyTests).toBe(true);
  });
});
