import { readFileSync } from "node:fs";
import { chromium } from "@playwright/test";
import { describe, expect, it } from "vitest";
import config, { CHROMIUM_DISABLED_FEATURES } from "../../playwright.config";

/** The `--disable-features` switches of a browser process's command line, in order. */
function disableFeatureSwitches(pid: number): string[][] {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8")
    .split("\0")
    .filter((arg) => arg.startsWith("--disable-features="))
    .map((arg) => arg.slice("--disable-features=".length).split(","));
}

describe("the browser tests' configuration", () => {
  it("retries a failed test only to record its trace: a test that passes on its retry fails the run", () => {
    // playwright.config.ts: the trace is recorded on the first retry, not for every test.
    expect(config.use?.trace).toMatchObject({ mode: "on-first-retry" });
    expect(config.retries).toBe(1);
    expect(config.failOnFlakyTests).toBe(true);
  });

  it("turns off every feature Playwright turns off, and the address bar's WebUI drop-down", async () => {
    // Launched as the browser tests launch it; Chromium reads the last `--disable-features` only.
    const server = await chromium.launchServer(config.use!.launchOptions);
    try {
      const switches = disableFeatureSwitches(server.process().pid!);
      expect(switches.length).toBe(2);
      const [playwrights, read] = [switches[0]!, switches.at(-1)!];
      expect(read).toEqual(CHROMIUM_DISABLED_FEATURES);
      expect(playwrights.filter((feature) => !read.includes(feature))).toEqual([]);
      // And a window starts no page of the browser's own UI (chrome://omnibox-popup.top-chrome/ was one).
      const browser = await chromium.connect(server.wsEndpoint());
      const context = await browser.newContext();
      await (await context.newPage()).goto("data:text/html,<h1>A test page</h1>");
      const { targetInfos } = await (await browser.newBrowserCDPSession()).send("Target.getTargets");
      expect(targetInfos.filter((target) => target.url.startsWith("chrome://")).map((target) => target.url)).toEqual([]);
      expect(targetInfos.filter((target) => target.type === "page").length).toBe(1);
      await browser.close();
    } finally {
      await server.close();
    }
  });
});
