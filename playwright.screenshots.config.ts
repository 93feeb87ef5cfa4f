import { defineConfig } from "@playwright/test";
import base from "./playwright.config";

/** `npm run screenshots`: the dashboard guide's pictures (docs/dashboard.md), taken from the real app with real data. */
export default defineConfig({
  ...base,
  testDir: "scripts/screenshots",
  workers: 1,
  use: { ...base.use, viewport: { width: 1280, height: 800 } },
});
