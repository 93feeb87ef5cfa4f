import { describe, expect, it } from "vitest";
import { grantsEntitlements } from "@/lib/entitlements/rules";
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from "@/lib/subscriptions/statuses";

const DAY = 86_400_000;
const now = new Date("2026-11-26T12:00:00.000Z");
const daysAgo = (days: number) => new Date(now.getTime() - days * DAY);

/** How long the subscription has been past_due (only meaningful for past_due), as the rows vary it. */
const AGES = { never: null, "1 day": daysAgo(1), "exactly the grace": "grace", "grace + 1 day": "grace+1" } as const;
const GRACES = [0, 1, 7, 30];

/** The expected answer, written out per status (the table), not computed by the rule. */
function expected(status: SubscriptionStatus, age: keyof typeof AGES, grace: number): boolean {
  if (status === "trialing" || status === "active") return true;
  if (status === "paused" || status === "cancelled") return false;
  // past_due: within the grace only (a grace of 0 days: never).
  if (age === "never") return true; // legacy row without past_due_since: not yet counted
  if (age === "1 day") return grace > 1;
  return false;
}

function sinceOf(age: keyof typeof AGES, grace: number): Date | null {
  const value = AGES[age];
  if (value === "grace") return daysAgo(grace);
  if (value === "grace+1") return daysAgo(grace + 1);
  return value;
}

const rows = SUBSCRIPTION_STATUSES.flatMap((status) =>
  GRACES.flatMap((grace) => (Object.keys(AGES) as (keyof typeof AGES)[]).map((age) => ({ status, grace, age }))),
);

describe("entitlement state table: every status × grace setting × time past_due", () => {
  it("has every row (5 statuses × 4 graces × 4 ages)", () => {
    expect(rows).toHaveLength(SUBSCRIPTION_STATUSES.length * GRACES.length * Object.keys(AGES).length);
    expect(SUBSCRIPTION_STATUSES).toEqual(["trialing", "active", "past_due", "paused", "cancelled"]);
  });

  it.each(rows)("$status, grace $grace days, past_due since $age", ({ status, grace, age }) => {
    const pastDueSince = sinceOf(age, grace);
    expect(grantsEntitlements({ status, pastDueSince }, now, grace)).toBe(expected(status, age, grace));
  });
});
