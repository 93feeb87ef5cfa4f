import { config } from "@/lib/config";
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from "@/lib/time";

/**
 * The spec's retry schedule: after a failed first attempt, retries wait 1 m, 5 m, 30 m, 2 h and
 * 24 h. The first attempt is not one of the five, so a delivery gets at most six attempts.
 */
export const RETRY_SCHEDULE = ["1m", "5m", "30m", "2h", "24h"] as const;

/** The response deadline of one attempt (spec: 30 seconds). */
export const ATTEMPT_TIMEOUT_MS = 30_000;

export type Delay = { text: string; ms: number };

const UNIT_MS = { ms: 1, s: SECOND_MS, m: MINUTE_MS, h: HOUR_MS, d: DAY_MS } as const;

export function parseDelay(text: string): Delay {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) throw new Error(`Not a delay: '${text}' (use e.g. 500ms, 1s, 5m, 2h, 1d).`);
  return { text: text.trim(), ms: Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] };
}

/** The schedule in force: WEBHOOK_RETRY_DELAYS (local testing, e.g. `1s,1s,1s,1s,1s`) or the spec's. */
export function retryDelays(): Delay[] {
  const override = config().webhooks.retryDelays;
  return (override ? override.split(",") : [...RETRY_SCHEDULE]).map(parseDelay);
}

export function attemptTimeoutMs(): number {
  return config().webhooks.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
}
