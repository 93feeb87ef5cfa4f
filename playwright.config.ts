import { defineConfig } from "@playwright/test";
import { bypassHeaders } from "./e2e/bypass";

/**
 * Playwright's own `--disable-features` list (chromiumSwitches in playwright-core), repeated: Chromium
 * reads only the last `--disable-features` switch, and ours comes after Playwright's, so ours must
 * hold Playwright's too. tests/unit/playwright-config.test.ts launches the browser as Playwright does
 * and checks that the switch Chromium reads still holds every feature Playwright turns off.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
  "msForceBrowserSignIn",
  "msEdgeUpdateLaunchServicesPreferredVersion",
];
/**
 * The address bar's drop-down as a web page (Chromium 156 draws it with WebUI): every new window,
 * one per test, started a renderer for it that no test uses. In the whole suite those renderers
 * took 76 s of CPU, about a seventh of Chromium's (docs/testing.md, "The browser tests").
 */
const UNUSED_WINDOW_UI_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"];
export const CHROMIUM_DISABLED_FEATURES = [...PLAYWRIGHT_DISABLED_FEATURES, ...UNUSED_WINDOW_UI_FEATURES];

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
      // Debian's chromium-headless-shell: Chromium's headless-only build (the "old" headless mode,
      // which Playwright itself runs for headless Chromium), with no browser UI behind the pages.
      // The suite's browser CPU is about a sixth less than with the full browser's headless mode
      // (docs/testing.md, "The browser tests"). CHROMIUM_PATH=/usr/bin/chromium to watch a run (--headed).
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium-headless-shell",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        `--disable-features=${CHROMIUM_DISABLED_FEATURES.join(",")}`,
      ],
    },
  },
});
