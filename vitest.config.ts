import path from "node:path";
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";
import { isLibSource } from "./tests/setup/coverage-scope.ts";

const root = path.dirname(new URL(import.meta.url).pathname);

/**
 * How many api test files run at once (`API_TEST_WORKERS` overrides it; 1 is the old serial run).
 * Why two, and what takes turns: docs/testing.md ("Shared set-up").
 */
const API_WORKERS = Number(process.env.API_TEST_WORKERS ?? 2);

/**
 * The contract and tooling gates: the OpenAPI document's lint and breaking-change diff, the SDK's
 * package and staleness checks, and the lint rules' probes. Each runs a whole tool (Redocly,
 * api-smart-diff, tsc, npm pack, ESLint) and together they take minutes, so they are projects of
 * their own: `npm test` and `npm run test:contract` run them, `npm run test:quick` does not.
 */
const CONTRACT_FILES = ["tests/unit/openapi-contract.test.ts", "tests/unit/sdk-package.test.ts", "tests/unit/sdk-stale-check.test.ts"];
/**
 * The lint rules' probes write files into the tree (lib/, app/, components/, db/, packages/sdk/),
 * which a file scanning the tree beside them (the import graph, the docs, the SDK's package) could
 * read. So they run in the last group, beside the property shards, which read no tree.
 */
const LINT_PROBE_FILES = ["tests/unit/lint-rules.test.ts"];

/**
 * The groups, in order (a group has one worker count): first the unit, contract, embedded and api
 * projects on API_WORKERS workers; then the property shards with the lint probes, two at once.
 * (Unit, contract and embedded used to run one file at a time in a group of their own, leaving a
 * core idle: docs/testing.md, "A whole run on a quiet machine".)
 */
const MAIN_GROUP = 0;
const LAST_GROUP = 1;
/** The last group's workers: the property shards are CPU work, two at once use both cores. */
const PROPERTY_WORKERS = 2;

/** A project of plain Node tests (no server of its own to start), in `group` on `maxWorkers` workers, with 60 s hang bounds. */
function nodeProject(
  name: string,
  files: { include: string[]; exclude?: string[] },
  group: number,
  maxWorkers: number,
  { isolate = true }: { isolate?: boolean } = {},
): TestProjectInlineConfiguration {
  return {
    extends: true,
    test: {
      name,
      ...files,
      environment: "node",
      maxWorkers,
      isolate,
      sequence: { groupOrder: group },
      globalSetup: ["tests/setup/process-guard.ts"],
      testTimeout: 60_000,
      hookTimeout: 60_000,
    },
  };
}

/**
 * `npm run test:coverage` (scripts/test-coverage.ts) turns coverage on: V8's, collected in the test
 * workers and kept raw for the script, which adds what the apps the tests start ran and reports
 * lib/'s lines. Monocart (monocart-coverage-reports) is the one tool that unpacks both the test
 * workers' code and the production build's bundled chunks to the same source files. Its options
 * are no vitest option, hence the spread (a custom provider reads them from the config it gets).
 */
const COVERAGE_REPORT_OPTIONS = {
  coverageReportOptions: {
    name: "lib/ in the test workers",
    outputDir: "coverage/workers",
    reports: ["raw"],
    entryFilter: (entry: { url: string }) => entry.url.includes("/lib/") && !entry.url.includes("/node_modules/"),
    sourceFilter: isLibSource,
    logging: "error",
  },
};

export default defineConfig({
  resolve: { alias: { "@": root } },
  test: {
    // reportOnFailure: a failed test still leaves the figure (the command fails all the same).
    coverage: { provider: "custom", customProviderModule: "vitest-monocart-coverage", include: ["lib/**"], reportOnFailure: true, ...COVERAGE_REPORT_OPTIONS },
    // `npm run test:profile` adds the profile (slowest files, time spent on set-up): tests/setup/profile-reporter.ts.
    reporters: ["default", "./tests/setup/summary-reporter.ts", ...(process.env.TEST_PROFILE ? ["./tests/setup/profile-reporter.ts"] : [])],
    projects: [
      // 60 s, not vitest's 5 s default: a timeout here stops a hung test, it does not measure speed
      // (importing the whole router took 6.3 s at load 12, and failed "compiles from the real lists").
      // One module graph per worker, as the api project's (below): the unit files' own tests took
      // about as long as loading lib/ into each file's new graph (docs/testing.md, "The test
      // workers' CPU"). A file that stubs the environment lib/ reads puts it back and resets the graph.
      nodeProject("unit", { include: ["tests/unit/**/*.test.ts"], exclude: [...configDefaults.exclude, ...CONTRACT_FILES, ...LINT_PROBE_FILES] }, MAIN_GROUP, API_WORKERS, { isolate: false }),
      nodeProject("contract", { include: CONTRACT_FILES }, MAIN_GROUP, API_WORKERS),
      nodeProject("lint-probes", { include: LINT_PROBE_FILES }, LAST_GROUP, PROPERTY_WORKERS),
      {
        // Real HTTP against `next start` on a fresh PostgreSQL database (see tests/setup/api-server.ts).
        extends: true,
        test: {
          name: "api",
          // Its files wait on HTTP, PostgreSQL, receivers and the clock more than they compute, and each
          // isolates itself by its own organizations on the shared app: several at once keep the cores
          // busy (vitest's default on 2 cores is one file at a time). The unit, contract and embedded
          // projects share its group and workers: MAIN_GROUP.
          maxWorkers: API_WORKERS,
          // One module graph per worker for all the files it runs, not one per file: loading lib/
          // into a file's new graph cost about 1 s of CPU, and 133 files spent more CPU starting than
          // the app they test (docs/testing.md, "The test workers' CPU"). So a file leaves the
          // graph as it found it: what it stubs or replaces (the environment, lib/'s database
          // handle) it puts back in its afterAll.
          isolate: false,
          sequence: { groupOrder: MAIN_GROUP },
          include: ["tests/api/**/*.test.ts"],
          // The process guard first: the app it starts inherits the run's mark (tests/setup/process-guard.ts).
          globalSetup: ["tests/setup/process-guard.ts", "tests/setup/api-server.ts"],
          setupFiles: ["tests/setup/stop-leftovers.ts", "tests/setup/worker-env.ts"],
          // Hang bounds, not speed claims: at load 6–12 five tests (teams, credit-notes, prices,
          // customer-discounts, usage) ended just past a 30 s timeout; a hung test still ends.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        // The service verbs called in-process on a PostgreSQL database of the project's own (tests/setup/property-database.ts),
        // no HTTP server: the 10,000-sequence billing property test. The route layer around the same verbs is proven over HTTP
        // by the api project (tests/api/credit-notes-property.test.ts runs the same sequences through it).
        extends: true,
        test: {
          name: "property",
          include: ["tests/property/**/*.test.ts"],
          // Its shards are CPU work (the verbs, their PDFs, PostgreSQL): two at once use both cores of a
          // 2-core machine, where vitest's default is one worker. The last group, with the lint probes.
          maxWorkers: PROPERTY_WORKERS,
          sequence: { groupOrder: LAST_GROUP },
          globalSetup: ["tests/setup/process-guard.ts", "tests/setup/property-database.ts"],
          setupFiles: ["tests/setup/property-env.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        // The embedded default: PGlite under a temporary data directory, and the seed script.
        extends: true,
        test: {
          name: "embedded",
          include: ["tests/embedded/**/*.test.ts"],
          maxWorkers: API_WORKERS,
          sequence: { groupOrder: MAIN_GROUP },
          globalSetup: ["tests/setup/process-guard.ts", "tests/setup/event-check.ts"],
          setupFiles: ["tests/setup/stop-leftovers.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
