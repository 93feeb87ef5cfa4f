import { handle, routeHandlers } from "@/lib/api/handler";
import { cronClockOperation } from "@/lib/cron/operations";
import { runClockCron } from "@/lib/cron/service";
import { wire } from "@/lib/server/wiring";

// The clock runs the transitions handed to it at start-up (lib/server/wiring.ts).
wire();

// CRON_MAX_DURATION_S (lib/cron/service.ts); Next reads segment config as a literal.
export const maxDuration = 60;

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(cronClockOperation, async ({ request }) => runClockCron(request.headers.get("authorization"))),
});
