import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, inject } from "vitest";

// The service verbs the property tests call in-process read their database from here (db/client.ts),
// before any module of lib/ reads the configuration.
process.env.DATABASE_URL = inject("propertyDatabaseUrl");

// The verbs hand a payment's outcome to its invoice and a settled invoice to its subscription through
// what the entry point wires at start-up (lib/server/wiring.ts), as the server does.
const { wire } = await import("@/lib/server/wiring");
wire();

// PROPERTY_CPU_PROF=<directory>: a CPU profile of each shard's worker (its sequences, the verbs, their
// PDFs), written there as property-<pid>.cpuprofile after the file. `node --cpu-prof` cannot: vitest ends its
// workers before Node writes the profile.
const profileDirectory = process.env.PROPERTY_CPU_PROF;
if (profileDirectory) {
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  afterAll(async () => {
    const { profile } = await session.post("Profiler.stop");
    mkdirSync(profileDirectory, { recursive: true });
    writeFileSync(path.join(profileDirectory, `property-${process.pid}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }, 120_000);
}
