import { appendFileSync } from "node:fs";
import path from "node:path";

/**
 * `npm run test:profile` (tests/setup/profile-reporter.ts) sets TEST_PROFILE_LOG: the helpers that
 * build expensive set-up (starting a server, creating and migrating a database) append how long
 * each took, and which test file asked, one JSON line each. Without it, nothing is written.
 */
/** `server:stop`: a stop the app ended by itself; `server:stop-killed`: one killed past its grace. */
export type SetUpKind = "server:start" | "server:dev" | "server:stop" | "server:stop-killed" | "database:create" | "database:migrate" | "database:from-template";

export function recordSetUpTime(kind: SetUpKind, ms: number): void {
  const log = process.env.TEST_PROFILE_LOG;
  if (!log) return;
  // The test file this worker is running (vitest's worker state); the run's own set-up has none.
  const filepath = (globalThis as { __vitest_worker__?: { filepath?: string } }).__vitest_worker__?.filepath;
  const file = filepath ? path.relative(process.cwd(), filepath) : "(run set-up)";
  appendFileSync(log, `${JSON.stringify({ kind, ms, file })}\n`);
}

/** Runs `work`, recording how long it took under `kind`. */
export async function timedSetUp<T>(kind: SetUpKind, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await work();
  } finally {
    recordSetUpTime(kind, Date.now() - started);
  }
}
