import { readFileSync } from "node:fs";

/**
 * Every process a test run starts (`next start`, `next dev`, PgBouncer, the CLI scripts, and what
 * they start) inherits this variable from the run's main process, whose environment the test
 * workers are forked from; its value names the run (tests/setup/process-guard.ts sets it, and at
 * the run's end stops the processes and drops the databases that carry it).
 */
export const TEST_RUN_VARIABLE = "BILLING_TEST_RUN";

/** The process exists and is not a zombie (a pid that is not a positive integer is no process). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}
