import { inject } from "vitest";
import { profileWorkerCpu } from "./worker-cpu-profile";

// The service verbs the property tests call in-process read their database from here (db/client.ts),
// before any module of lib/ reads the configuration.
process.env.DATABASE_URL = inject("propertyDatabaseUrl");

// The verbs hand a payment's outcome to its invoice and a settled invoice to its subscription through
// what the entry point wires at start-up (lib/server/wiring.ts), as the server does.
const { wire } = await import("@/lib/server/wiring");
wire();

// PROPERTY_CPU_PROF=<directory>: a CPU profile of each shard's worker (its sequences, the verbs, their PDFs).
if (process.env.PROPERTY_CPU_PROF) await profileWorkerCpu(process.env.PROPERTY_CPU_PROF, "property");
