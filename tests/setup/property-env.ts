import { inject } from "vitest";

// The service verbs the property tests call in-process read their database from here (db/client.ts),
// before any module of lib/ reads the configuration.
process.env.DATABASE_URL = inject("propertyDatabaseUrl");
