import { defineConfig } from "@playwright/test";
import { bypassHeaders } from "./e2e/bypass";

/**
 * End-to-end tests in Debian's Chromium (never `playwright install`). By default they run against
 * the app started by e2e/global-setup.ts on a fresh PostgreSQL database; E2E_BASE_URL points them
 * at a deployment instead (see docs/deploy.md, "End-to-end tests against a deployment").
 */
export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  // The Stripe spec steers the Stripe stand-in the app under test talks to (STRIPE_API_BASE): the
  // app started here and `npm run test:e2e:deployment` start one; a deployment elsewhere has none
  // unless E2E_STRIPE_STAND_IN_URL names the one its STRIPE_API_BASE points at (docs/payments.md).
  testIgnore: process.env.E2E_BASE_URL && !process.env.E2E_STRIPE_STAND_IN_URL ? ["**/stripe-checkout.spec.ts"] : [],
  globalSetup: "./e2e/global-setup.ts",
  fullyParallel: true,
  workers: 2,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  forbidOnly: Boolean(process.env.CI),
  // A failed test runs once more, recording its trace (below); a test that then passes is flaky,
  // and a flaky test fails the run as a failed one does: the retry only buys the trace.
  retries: 1,
  failOnFlakyTests: true,
  reporter: [["list"]],
  use: {
    baseURL: process.env.E2E_BASE_URL,
    // A protected Vercel preview: "Protection Bypass for Automation" (fixtures.ts sends it on API calls too).
    extraHTTPHeaders: bypassHeaders(),
    // A failed test's retry records the trace: actions, network, console and the DOM at each step.
    // Recording every test's trace to keep only the failed ones' cost a tenth of the suite's time,
    // and its screencast (a JPEG stream from the browser) a sixth before that (docs/testing.md, "The
    // browser tests"). The failure's own screenshot below is still taken, at the first attempt.
    trace: { mode: "on-first-retry", screenshots: false },
    screenshot: "only-on-failure",
    browserName: "chromium",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
});
