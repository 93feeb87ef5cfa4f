import { enableCompileCache, flushCompileCache } from "node:module";
import { fileURLToPath } from "node:url";
import { Agent, setGlobalDispatcher } from "undici";
import { afterAll, afterEach, inject } from "vitest";
import { takeValidatedResponseCount } from "../helpers/api-contract";
import { TEST_DATABASE_IDLE_SECONDS } from "../helpers/server";
import { profileWorkerCpu } from "./worker-cpu-profile";

declare module "vitest" {
  interface TaskMeta {
    /** API responses the test client validated against the OpenAPI document during this test (and the hooks before it). */
    validatedResponses?: number;
  }
}

// Each test file runs in a new worker process: what Node loads itself (the dependencies in node_modules,
// the test client's compiled response validators: tests/helpers/api-contract.ts) is compiled once and
// read from V8's code cache on disk after, as the apps the tests start do (tests/helpers/server.ts).
// Written when the file ends: vitest ends its workers before Node's own write at exit.
enableCompileCache(fileURLToPath(new URL("../../node_modules/.cache/billing-service/node-compile-cache/", import.meta.url)));
afterAll(() => flushCompileCache());

// Test helpers use lib/ directly (to create merchants, inspect rows) on the app's database.
process.env.DATABASE_URL = inject("databaseUrl");
process.env.DATABASE_IDLE_SECONDS ??= TEST_DATABASE_IDLE_SECONDS;

// Their commits announce deliveries and schedule transitions as the server's do (lib/server/wiring.ts).
const { wire } = await import("@/lib/server/wiring");
wire();

// fetch drops an idle socket after 1 s, long before the test app closes it (65 s,
// tests/helpers/server.ts). With Node's defaults (the app 5 s, fetch 2 s less) a worker blocked for
// seconds on a loaded machine reused a socket the app had just closed: "fetch failed: other side closed".
setGlobalDispatcher(new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 }));

// The summary reporter adds these up and fails an api run that validated nothing.
afterEach(({ task }) => {
  task.meta.validatedResponses = takeValidatedResponseCount();
});

// API_CPU_PROF=<directory>: a CPU profile of each api file's worker, after this set-up (docs/testing.md, "The test workers' CPU").
if (process.env.API_CPU_PROF) await profileWorkerCpu(process.env.API_CPU_PROF, "api");
