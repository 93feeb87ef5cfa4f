import { inject } from "vitest";

// Test helpers use lib/ directly (to create merchants, inspect rows) on the app's database.
process.env.DATABASE_URL = inject("databaseUrl");
