import { loadSyntheticEvents, withEventIndexesRebuilt } from "@/db/synthetic-events";
import { runLoader } from "./load-cli";

// `npm run --silent events:load -- --account <account id> --events <n> [--days 365] [--build-indexes-after]`:
// n synthetic events (varied types, entities and times over the last `days` days) into an existing
// account of the PostgreSQL database at DATABASE_URL, with their totals, then ANALYZEd (the planner
// must know the account's rows). See db/synthetic-events.ts. `--build-indexes-after` drops the
// events' secondary indexes for the load and builds them once at its end (withEventIndexesRebuilt):
// much cheaper for a large load, but only for a database no app uses meanwhile.
const buildIndexesAfter = process.argv.includes("--build-indexes-after");
await runLoader("events:load", "events", 365, (sql, window) =>
  buildIndexesAfter ? withEventIndexesRebuilt(sql, () => loadSyntheticEvents(sql, window)) : loadSyntheticEvents(sql, window),
);
