import { loadSyntheticUsage } from "@/db/synthetic-usage";
import { runLoader } from "./load-cli";

// `npm run --silent usage:load -- --account <account id> --events <n> [--days 30]`: n synthetic
// usage events spread over the last `days` days, round-robin over the account's active meters and
// customers, with their hourly aggregates, then ANALYZEd. See db/synthetic-usage.ts.
await runLoader("usage:load", "usage events", 30, (sql, window) => loadSyntheticUsage(sql, window));
