import { afterEach, inject } from "vitest";
import { takeValidatedResponseCount } from "../helpers/api-contract";

declare module "vitest" {
  interface TaskMeta {
    /** API responses the test client validated against the OpenAPI document during this test (and the hooks before it). */
    validatedResponses?: number;
  }
}

// Test helpers use lib/ directly (to create merchants, inspect rows) on the app's database.
process.env.DATABASE_URL = inject("databaseUrl");

// The summary reporter adds these up and fails an api run that validated nothing.
afterEach(({ task }) => {
  task.meta.validatedResponses = takeValidatedResponseCount();
});
