import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll } from "vitest";

/**
 * A CPU profile of the calling test file's worker, from here to the file's end, written to
 * `<directory>/<prefix>-<pid>-<time>.cpuprofile` (open it in Chrome's DevTools or speedscope).
 * `node --cpu-prof` cannot: vitest ends its workers before Node writes the profile.
 * PROPERTY_CPU_PROF (tests/setup/property-env.ts) and API_CPU_PROF (tests/setup/worker-env.ts) name the directory.
 */
export async function profileWorkerCpu(directory: string, prefix: string): Promise<void> {
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  afterAll(async () => {
    const { profile } = await session.post("Profiler.stop");
    mkdirSync(directory, { recursive: true });
    writeFileSync(path.join(directory, `${prefix}-${process.pid}-${Date.now()}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }, 120_000);
}
