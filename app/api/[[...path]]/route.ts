import { apiRouter } from "@/lib/server/routes";
import { wire } from "@/lib/server/wiring";

// The lower layers get their work from the upper ones here and in instrumentation-node.ts (lib/server/wiring.ts).
wire();

// Every /api operation (lib/server/operations-index.ts), and the 404 problem for unknown /api paths.
// Static routes beside this one (auth, inngest, cron) are matched before it.
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = apiRouter.exports;
