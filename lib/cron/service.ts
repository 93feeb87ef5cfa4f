import { createHash, timingSafeEqual } from "node:crypto";
import type { z } from "zod";
import { purgeExpiredRateLimits } from "@/db/rate-limits";
import { runAllDueTransitions } from "@/lib/clock/service";
import { config } from "@/lib/config";
import { sendDueEmails } from "@/lib/emails/send";
import { ServiceError } from "@/lib/errors";
import { compactListCountsNow } from "@/lib/jobs/list-count-compactor";
import { deliverDueOnce } from "@/lib/webhooks/driver";
import { attemptTimeoutMs } from "@/lib/webhooks/schedule";
import type { CronClockRun, CronDeliveriesRun } from "./schema";

/**
 * The cron routes' maxDuration (seconds): the route files export this literal (Next reads it
 * statically), and every plan allows it. Each run stops starting work early enough to finish inside it.
 */
export const CRON_MAX_DURATION_S = 60;
const MARGIN_MS = 5_000;

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** Vercel Cron sends `Authorization: Bearer <CRON_SECRET>`; anything else is a 401. */
export function authorizeCron(authorization: string | null): void {
  const secret = config().cronSecret;
  if (!secret) {
    throw new ServiceError("unauthorized", "This deployment has no CRON_SECRET set, so its cron routes refuse every call.");
  }
  const match = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  // Worded without a literal "Bearer <value>": problem details pass the secret scanner (lib/log.ts).
  if (!match) throw new ServiceError("unauthorized", "Send your CRON_SECRET in the Authorization header (scheme: Bearer).");
  // Hashes have one length, so the comparison takes the same time whatever was sent.
  if (!timingSafeEqual(digest(match[1]!), digest(secret))) {
    throw new ServiceError("unauthorized", "Wrong cron secret.");
  }
}

/** Passes over due deliveries; no attempt starts once an attempt could outlast the invocation. */
export async function runDeliveriesCron(authorization: string | null): Promise<z.input<typeof CronDeliveriesRun>> {
  authorizeCron(authorization);
  const started = Date.now();
  const budgetMs = Math.max(CRON_MAX_DURATION_S * 1000 - attemptTimeoutMs() - MARGIN_MS, 5_000);
  // The embedded driver's fair claim: per-endpoint caps and rates hold in cron passes too.
  const pass = await deliverDueOnce({ deadlineMs: budgetMs });
  return { object: "cron_run", job: "deliveries", ...pass, duration_ms: Date.now() - started };
}

/** Every account's due transitions, until the budget runs out (the rest stay due for the next run). */
export async function runClockCron(authorization: string | null): Promise<z.input<typeof CronClockRun>> {
  authorizeCron(authorization);
  const started = Date.now();
  // Renewals can pay sandbox invoices, which send nothing over the network: a third of the time is room enough.
  const run = await runAllDueTransitions({ deadline: started + CRON_MAX_DURATION_S * 1000 - 20_000 });
  // The minute's list-count deltas (a long-lived process folds them in every few seconds).
  const folded = await compactListCountsNow();
  const purged = await purgeExpiredRateLimits();
  // Retries and emails whose after-response pass was lost (lib/jobs/serverless.ts).
  const emailed = await sendDueEmails(5);
  return {
    object: "cron_run",
    job: "clock",
    accounts: run.accounts,
    accounts_left: run.accountsLeft,
    transitions_run: run.transitionsRun,
    list_count_deltas_folded: folded,
    rate_limits_purged: purged,
    emails_sent: emailed.sent,
    duration_ms: Date.now() - started,
  };
}
