import { eq } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { accounts, type ChangeStep } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import type { SubscriptionWithItems } from "@/lib/subscriptions/serialize";
import { preview, previewAtPeriodEnd, type ChangePreview } from "./core";
import type { ProrationBehavior } from "./proration";
import type { ChangeEffect } from "./schema";

export type PlanChangePolicy = "immediate" | "upgrade_now_downgrade_at_period_end";

async function accountPolicy(executor: Executor, accountId: string): Promise<PlanChangePolicy | undefined> {
  const [account] = await executor.select({ policy: accounts.planChangePolicy }).from(accounts).where(eq(accounts.id, accountId));
  return account?.policy;
}

/**
 * When a new change request takes effect, and its preview. An explicit `effective` wins; without
 * one the account's `plan_change_policy` decides: `immediate` → now; `upgrade_now_downgrade_at_period_end`
 * → now when the proration now is positive (an upgrade, billed for the rest of the period; with
 * `proration_behavior: none` too, though nothing is then charged), else at the period end (a
 * downgrade, an equal change, or anything while nothing is billed now: trialing, paused). `policy`
 * stands in for the account's (the portal configuration's rule).
 */
export async function effectiveAndPreview(
  executor: Executor,
  ctx: ServiceContext,
  current: SubscriptionWithItems,
  steps: readonly ChangeStep[],
  now: Date,
  explicit: ChangeEffect | undefined,
  behavior: ProrationBehavior,
  policy?: PlanChangePolicy,
): Promise<{ effective: ChangeEffect } & ChangePreview> {
  if (explicit === "period_end") return { effective: explicit, ...(await previewAtPeriodEnd(executor, ctx, current, steps)) };
  const { netProrationAtom, ...immediate } = await preview(executor, ctx, current, steps, now, behavior);
  if (explicit === "now" || netProrationAtom > 0) return { effective: "now", ...immediate };
  const rule = policy ?? (await accountPolicy(executor, ctx.accountId));
  if (rule !== "upgrade_now_downgrade_at_period_end") return { effective: "now", ...immediate };
  return { effective: "period_end", ...(await previewAtPeriodEnd(executor, ctx, current, steps)) };
}
