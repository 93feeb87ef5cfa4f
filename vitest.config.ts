import path from "node:path";
import { defineConfig } from "vitest/config";

const root = path.dirname(new URL(import.meta.url).pathname);

export default defineConfig({
  resolve: { alias: { "@": root } },
  test: {
    reporters: ["default", "./tests/setup/summary-reporter.ts"],
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["tests/unit/**/*.test.ts"], environment: "node" },
      },
      {
        // Real HTTP against `next start` on a fresh PostgreSQL database (see tests/setup/api-server.ts).
        extends: true,
        test: {
          name: "api",
          include: ["tests/api/**/*.test.ts"],
          globalSetup: ["tests/setup/api-server.ts"],
          setupFiles: ["tests/setup/worker-env.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The embedded default: PGlite under a temporary data directory, and the seed script.
        extends: true,
        test: {
          name: "embedded",
          include: ["tests/embedded/**/*.test.ts"],
          globalSetup: ["tests/setup/event-check.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
