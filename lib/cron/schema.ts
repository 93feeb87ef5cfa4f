import { z } from "zod";

export const CronDeliveriesRun = z
  .object({
    object: z.literal("cron_run"),
    job: z.literal("deliveries"),
    attempted: z.number().int().meta({ description: "Attempts made in this run." }),
    delivered: z.number().int(),
    retrying: z.number().int().meta({ description: "Attempts that failed and are scheduled again." }),
    failed: z.number().int().meta({ description: "Attempts that failed for good." }),
    skipped: z.number().int().meta({ description: "Endpoints with due work that another instance or run held at the time (at most, over the run's claims)." }),
    duration_ms: z.number().int(),
  })
  .meta({ id: "CronDeliveriesRun" });

export const CronClockRun = z
  .object({
    object: z.literal("cron_run"),
    job: z.literal("clock"),
    accounts: z.number().int().meta({ description: "Accounts with something due." }),
    accounts_left: z.number().int().meta({ description: "Of those, left for the next run when the time budget ran out." }),
    transitions_run: z.number().int(),
    list_count_deltas_folded: z.number().int().meta({ description: "List-count changes folded into the lists' totals (docs/rules/api.md, \"List totals\")." }),
    rate_limits_purged: z.number().int().meta({ description: "Expired rate-limit rows deleted (docs/security.md, \"Rate limits\")." }),
    emails_sent: z.number().int().meta({ description: "Queued emails sent (docs/emails.md); the failed and retrying ones are in the email log." }),
    duration_ms: z.number().int(),
  })
  .meta({ id: "CronClockRun" });
