import { loadSyntheticEvents } from "@/db/synthetic-events";
import { runLoader } from "./load-cli";

// `npm run --silent events:load -- --account <account id> --events <n> [--days 365]`: n synthetic
// events (varied types, entities and times over the last `days` days) into an existing account of
// the PostgreSQL database at DATABASE_URL, with their totals, then ANALYZEd (the planner must know
// the account's rows). See db/synthetic-events.ts.
await runLoader("events:load", "events", 365, (sql, window) => loadSyntheticEvents(sql, window));
