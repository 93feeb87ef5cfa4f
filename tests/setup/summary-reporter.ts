import type { Reporter, TestModule } from "vitest/node";

/**
 * Ends the run with one plain line, "Tests: N passed, N failed, N skipped", for CI logs. An api
 * run also says how many responses the test client validated against the OpenAPI document, and
 * fails when that is 0: the check would otherwise pass vacuously if the client stopped checking.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    let apiTests = 0;
    let validatedResponses = 0;
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") counts.passed++;
        else if (state === "failed") counts.failed++;
        else counts.skipped++;
        if (testModule.project.name === "api" && state !== "skipped") {
          apiTests++;
          validatedResponses += test.meta().validatedResponses ?? 0;
        }
      }
    }
    if (apiTests > 0) {
      console.log(`API responses validated against the OpenAPI document: ${validatedResponses}`);
      if (validatedResponses === 0) {
        console.error("No API response was validated: the test client's contract check did not run (tests/helpers/api-contract.ts).");
        process.exitCode = 1;
      }
    }
    console.log(`Tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  }
}
