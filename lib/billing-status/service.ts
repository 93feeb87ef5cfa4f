import { eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts, organizations } from "@/db/schema";
import { config } from "@/lib/config";
import type { Verb } from "@/lib/context";
import { notFound } from "@/lib/errors";
import { ensurePlatform, isPlatformOrganization, platformContext, platformStanding } from "@/lib/platform/service";
import { one } from "@/lib/rows";
import type { SubscriptionRow } from "@/lib/subscriptions/serialize";
import type { BillingStatusObject, BillingStatusUpdateInput, BillingStatusValue, OperatorBillingStatusObject } from "./schema";
import { DAY_MS, realNow } from "@/lib/time";

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

/** The platform subscription's status as a billing status (a paused plan reads as past due: see docs/rules/subscriptions.md, "Billing status"). */
const FROM_SUBSCRIPTION: Record<SubscriptionRow["status"], BillingStatusValue> = {
  trialing: "trialing",
  active: "active",
  past_due: "past_due",
  paused: "past_due",
  cancelled: "cancelled",
};


export type Standing = {
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

/** When the platform subscription ends or ended: cancelled, or set to cancel at its period end; else null. */
function subscriptionEnd(subscription: SubscriptionRow): Date | null {
  if (subscription.status === "cancelled") return subscription.cancelledAt;
  return subscription.cancelAtPeriodEnd ? subscription.currentPeriodEnd : null;
}

type OrganizationRow = typeof organizations.$inferSelect;

async function organizationOf(accountId: string): Promise<OrganizationRow> {
  const db = await getDb();
  const [row] = await db
    .select({ organization: organizations })
    .from(accounts)
    .innerJoin(organizations, eq(organizations.id, accounts.organizationId))
    .where(eq(accounts.id, accountId));
  if (!row) throw notFound("account", accountId);
  return row.organization;
}

/**
 * The organization's standing, read from its platform subscription on the platform's billing
 * account, at that account's time (its test clock, when it is a sandbox account).
 */
async function standingOf(organization: OrganizationRow) {
  const switches = {
    citProcessingEnabled: organization.citProcessingEnabled,
    mitProcessingEnabled: organization.mitProcessingEnabled,
  };
  const none = { trialEnd: null, subscriptionEnd: null, customerId: null, subscriptionId: null };
  // Platform billing off (the default, a self-hosted install): no organization owes anything.
  if (!config().platform.billing) {
    return { now: realNow(), standing: { ...switches, ...none, billingStatus: "exempt" as const }, ...none };
  }
  const platform = await ensurePlatform();
  const now = (await platformContext(platform)).now();
  // The operator's own organization (the platform's) never bills itself.
  if (organization.billingExempt || organization.platform || isPlatformOrganization(organization.id)) {
    return { now, standing: { ...switches, ...none, billingStatus: "exempt" as const }, ...none };
  }
  const { customer, subscription } = organization.platformCustomerId
    ? await platformStanding(platform, organization.platformCustomerId)
    : { customer: null, subscription: null };
  // No platform customer (enrollment never finished, or it was deleted): nobody is billed for it.
  if (!customer || customer.deletedAt) {
    return { now, standing: { ...switches, ...none, billingStatus: "orphaned" as const }, ...none, customerId: customer?.id ?? null };
  }
  if (!subscription) {
    return { now, standing: { ...switches, ...none, billingStatus: "no_subscription" as const }, ...none, customerId: customer.id };
  }
  return {
    now,
    standing: {
      ...switches,
      billingStatus: FROM_SUBSCRIPTION[subscription.status],
      trialEnd: subscription.trialEnd,
      subscriptionEnd: subscriptionEnd(subscription),
    },
    customerId: customer.id,
    subscriptionId: subscription.id,
  };
}

/** The standing of the organization that owns the account (spec endpoint 1). */
export async function getBillingStatus({ ctx }: Verb<Record<string, never>>): Promise<BillingStatusObject> {
  const { standing, now } = await standingOf(await organizationOf(ctx.accountId));
  return deriveBillingStatus(standing, now);
}

/**
 * Operators (secret tokens of the platform organization) switch CIT/MIT processing and the
 * exemption of the organization that owns the account, and see which platform objects bill it.
 */
export async function updateBillingStatus({
  ctx,
  input,
}: Verb<BillingStatusUpdateInput>): Promise<OperatorBillingStatusObject> {
  const before = await organizationOf(ctx.accountId);
  const changes = {
    ...(input.cit_processing_enabled === undefined ? {} : { citProcessingEnabled: input.cit_processing_enabled }),
    ...(input.mit_processing_enabled === undefined ? {} : { mitProcessingEnabled: input.mit_processing_enabled }),
    ...(input.billing_exempt === undefined ? {} : { billingExempt: input.billing_exempt }),
  };
  let organization = before;
  if (Object.keys(changes).length > 0) {
    const db = await getDb();
    organization = one(
      await db
        .update(organizations)
        // The platform's organization row, not an account's: real time.
        .set({ ...changes, updated: realNow() })
        .where(eq(organizations.id, before.id))
        .returning(),
      "organization",
    );
  }
  const { standing, now, customerId, subscriptionId } = await standingOf(organization);
  return {
    ...deriveBillingStatus(standing, now),
    organization: organization.id,
    billing_exempt: organization.billingExempt,
    platform_customer: customerId,
    platform_subscription: subscriptionId,
  };
}
