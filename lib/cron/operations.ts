import { defineOperation } from "@/lib/api/operation";
import { CronClockRun, CronDeliveriesRun } from "./schema";

/**
 * The Vercel Cron routes (vercel.json). They are `public` to the token layer because no API token
 * or dashboard session calls them: the deployment's scheduler does, with CRON_SECRET, checked
 * first thing by lib/cron/service.ts. They stay out of the API's OpenAPI document (lib/server/openapi.ts):
 * that document is the merchants' contract, and these are the deployment's own plumbing.
 */
const tag = "Cron";

export const cronDeliveriesOperation = defineOperation({
  operationId: "runCronDeliveries",
  method: "GET",
  path: "/cron/deliveries",
  summary: "Attempt every due webhook delivery once",
  description:
    "Retries whose delay has passed, attempts whose lease expired, and first attempts an `after()` lost. Requires `Authorization: Bearer <CRON_SECRET>` (401 otherwise). Bounded in time; overlapping runs are safe.",
  tag,
  access: "public",
  response: { status: 200, description: "What the pass did.", schema: CronDeliveriesRun },
});

export const cronClockOperation = defineOperation({
  operationId: "runCronClock",
  method: "GET",
  path: "/cron/clock",
  summary: "Run every due time-driven transition",
  description:
    "Renewals, trial ends, `invoice.upcoming`, dunning retries, overdue invoices and checkout expiry, in every account on its own clock. Requires `Authorization: Bearer <CRON_SECRET>` (401 otherwise). Bounded in time; overlapping runs are safe.",
  tag,
  access: "public",
  response: { status: 200, description: "What the run did.", schema: CronClockRun },
});

export const cronOperations = [cronDeliveriesOperation, cronClockOperation];
