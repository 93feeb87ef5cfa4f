import { eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts, organizations } from "@/db/schema";
import type { Verb } from "@/lib/context";
import { notFound } from "@/lib/errors";
import type { BillingStatusObject, BillingStatusValue } from "./schema";

/** DESIGN.md decision 12: which kinds of payment each status allows. */
export const STATUS_ALLOWS: Record<BillingStatusValue, { cit: boolean; mit: boolean }> = {
  active: { cit: true, mit: true },
  trialing: { cit: true, mit: true },
  exempt: { cit: true, mit: true },
  past_due: { cit: true, mit: false },
  cancelled: { cit: false, mit: false },
  no_subscription: { cit: false, mit: false },
  orphaned: { cit: false, mit: false },
};

const DAY_MS = 24 * 60 * 60 * 1000;

type Standing = {
  billingStatus: BillingStatusValue | null;
  trialEnd: Date | null;
  subscriptionEnd: Date | null;
  citProcessingEnabled: boolean;
  mitProcessingEnabled: boolean;
};

export function deriveBillingStatus(standing: Standing, now: Date): BillingStatusObject {
  const allows = standing.billingStatus ? STATUS_ALLOWS[standing.billingStatus] : { cit: false, mit: false };
  const trialing = standing.billingStatus === "trialing" && standing.trialEnd !== null;
  return {
    cit_allowed: standing.citProcessingEnabled && allows.cit,
    mit_allowed: standing.mitProcessingEnabled && allows.mit,
    cit_processing_enabled: standing.citProcessingEnabled,
    mit_processing_enabled: standing.mitProcessingEnabled,
    billing_status: standing.billingStatus,
    trial_days_remaining: trialing
      ? Math.max(0, Math.ceil((standing.trialEnd!.getTime() - now.getTime()) / DAY_MS))
      : null,
    trial_end: standing.trialEnd?.toISOString() ?? null,
    subscription_end: standing.subscriptionEnd?.toISOString() ?? null,
  };
}

/** The standing of the organization that owns the account. */
export async function getBillingStatus({ ctx }: Verb<Record<string, never>>): Promise<BillingStatusObject> {
  const db = await getDb();
  const [row] = await db
    .select({
      citProcessingEnabled: organizations.citProcessingEnabled,
      mitProcessingEnabled: organizations.mitProcessingEnabled,
    })
    .from(accounts)
    .innerJoin(organizations, eq(organizations.id, accounts.organizationId))
    .where(eq(accounts.id, ctx.accountId));
  if (!row) throw notFound("account", ctx.accountId);
  return deriveBillingStatus({ ...row, billingStatus: null, trialEnd: null, subscriptionEnd: null }, ctx.now());
}
