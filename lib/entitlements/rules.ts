import { DAY_MS } from "@/lib/time";
import type { SubscriptionStatus } from "@/lib/subscriptions/statuses";

/*
 * The one rule of who is entitled (pure, so the state table in tests/unit/entitlement-rules.test.ts
 * covers every row): a subscription grants its products' features while trialing or active, and
 * while past_due for `graceDays` days from when it became past_due; never paused or cancelled.
 */

export type GrantingState = { status: SubscriptionStatus; pastDueSince: Date | null };

/** Statuses that may grant (past_due only within the grace): the SQL pre-filter of the live query. */
export const GRANTING_STATUSES = ["trialing", "active", "past_due"] as const satisfies readonly SubscriptionStatus[];

/** When a past_due subscription stops granting: `pastDueSince` + the grace (null since: legacy rows, from now on). */
export function graceEndOf(pastDueSince: Date, graceDays: number): Date {
  return new Date(pastDueSince.getTime() + graceDays * DAY_MS);
}

export function grantsEntitlements(state: GrantingState, now: Date, graceDays: number): boolean {
  switch (state.status) {
    case "trialing":
    case "active":
      return true;
    case "past_due":
      // A row made past_due before past_due_since existed was backfilled by the migration.
      return state.pastDueSince === null || now.getTime() < graceEndOf(state.pastDueSince, graceDays).getTime();
    default:
      return false;
  }
}
