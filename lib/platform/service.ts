import { and, desc, eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts, customers, organizations, prices, products, subscriptions } from "@/db/schema";
import { issueToken, type IssuedToken } from "@/lib/auth/tokens";
import { systemContext } from "@/lib/clock/service";
import { config } from "@/lib/config";
import type { ServiceContext } from "@/lib/context";
import { createCustomer } from "@/lib/customers/service";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction } from "@/lib/events/transaction";
import { serializePrice } from "@/lib/prices/serialize";
import { serializeProduct } from "@/lib/products/serialize";
import { createSubscription } from "@/lib/subscriptions/service";
import { isPlatformOrganization, platformIds } from "@/lib/auth/platform-ids";

export { isPlatformOrganization };

/**
 * The platform bills its own merchants with its own objects: the platform organization (fixed ids)
 * has a live and a sandbox account; the billing account (PLATFORM_BILLING_MODE) holds the plan
 * (a product and a monthly price), one customer per merchant organization and that customer's
 * subscription. Billing status is read from that subscription (lib/billing-status).
 */
export type PlatformBilling = { organizationId: string; accountId: string; livemode: boolean; priceId: string };

let ensured: Promise<PlatformBilling> | undefined;

/** Creates the platform organization, its accounts and the plan once (idempotent across processes). */
export function ensurePlatform(): Promise<PlatformBilling> {
  ensured ??= createPlatform().catch((error: unknown) => {
    ensured = undefined;
    throw error;
  });
  return ensured;
}

async function createPlatform(): Promise<PlatformBilling> {
  const ids = platformIds();
  const livemode = config().platform.billingMode === "live";
  const accountId = livemode ? ids.liveAccount : ids.sandboxAccount;
  const db = await getDb();
  await db.transaction(async (tx) => {
    await tx.insert(organizations).values({ id: ids.organization, name: "Platform", platform: true }).onConflictDoNothing();
    await tx
      .insert(accounts)
      .values([
        { id: ids.liveAccount, organizationId: ids.organization, name: "Platform", livemode: true },
        { id: ids.sandboxAccount, organizationId: ids.organization, name: "Platform (sandbox)", livemode: false },
      ])
      .onConflictDoNothing();
  });
  const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId));
  const ctx = systemContext(account!);
  const plan = config().platform.plan;
  await withChangeTransaction(async (tx) => {
    const now = ctx.now();
    const [product] = await tx
      .insert(products)
      .values({ id: ids.product(livemode), accountId, name: "Platform subscription", metadata: { platform_plan: "standard" }, created: now, updated: now })
      .onConflictDoNothing()
      .returning();
    // Only the process that inserted a row records its creation: the event is written exactly once.
    if (product) {
      await emitEvent(tx, ctx, { type: "product.created", aggregateId: product.id, data: serializeProduct(product, livemode), previousData: null });
    }
    const [price] = await tx
      .insert(prices)
      .values({
        id: ids.price(livemode),
        accountId,
        productId: ids.product(livemode),
        currency: plan.currency,
        unitAmountAtom: plan.amountAtom,
        type: "recurring",
        recurringInterval: "month",
        recurringIntervalCount: 1,
        nickname: "Standard monthly",
        metadata: { platform_plan: "standard" },
        created: now,
        updated: now,
      })
      .onConflictDoNothing()
      .returning();
    if (price) {
      await emitEvent(tx, ctx, { type: "price.created", aggregateId: price.id, data: serializePrice(price, livemode), previousData: null });
    }
  });
  return { organizationId: ids.organization, accountId, livemode, priceId: ids.price(livemode) };
}

/** The system context of the platform's billing account, on that account's own clock. */
export async function platformContext(platform: PlatformBilling): Promise<ServiceContext> {
  const db = await getDb();
  const [account] = await db.select().from(accounts).where(eq(accounts.id, platform.accountId));
  return systemContext(account!);
}

/**
 * Enrolls a merchant organization in platform billing when it is on (`PLATFORM_BILLING=on`): its
 * customer on the billing account, then a trialing subscription to the plan (no invoice until the
 * trial ends). Each step is skipped when already done, so running it again finishes an enrollment
 * that was cut short. Called after the organization is committed; if it fails, the organization
 * reads `orphaned` (no customer) or `no_subscription` until it is run again.
 */
export async function enrollOrganization(input: { organizationId: string; email: string; name: string }): Promise<void> {
  // Platform billing off (the default): nobody is billed, so there is nothing to enroll in.
  if (!config().platform.billing) return;
  const platform = await ensurePlatform();
  if (isPlatformOrganization(input.organizationId)) return;
  const ctx = await platformContext(platform);
  const db = await getDb();
  const [organization] = await db.select().from(organizations).where(eq(organizations.id, input.organizationId));
  if (!organization) throw new Error(`No organization ${input.organizationId}.`);
  let customerId = organization.platformCustomerId;
  if (!customerId) {
    const customer = await createCustomer({
      ctx,
      input: { email: input.email, name: input.name, metadata: { organization_id: input.organizationId } },
    });
    customerId = customer.id;
    await db.update(organizations).set({ platformCustomerId: customerId }).where(eq(organizations.id, input.organizationId));
  }
  const [existing] = await db
    .select({ id: subscriptions.id })
    .from(subscriptions)
    .where(and(eq(subscriptions.accountId, platform.accountId), eq(subscriptions.customerId, customerId)))
    .limit(1);
  if (existing) return;
  await createSubscription({
    ctx,
    input: {
      customer: customerId,
      items: [{ price: platform.priceId }],
      trial_period_days: config().platform.trialDays,
      metadata: { organization_id: input.organizationId },
    },
  });
}

/** The merchant organization's customer and newest subscription on the billing account. */
export async function platformStanding(platform: PlatformBilling, customerId: string) {
  const db = await getDb();
  const [customer] = await db
    .select()
    .from(customers)
    .where(and(eq(customers.accountId, platform.accountId), eq(customers.id, customerId)));
  const [subscription] = await db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.accountId, platform.accountId), eq(subscriptions.customerId, customerId)))
    .orderBy(desc(subscriptions.created), desc(subscriptions.id))
    .limit(1);
  return { customer: customer ?? null, subscription: subscription ?? null };
}

/** A secret token of the platform's billing account: operators call the operator operations with it. */
export async function issueOperatorToken(name = "Operator token"): Promise<IssuedToken & { accountId: string }> {
  const platform = await ensurePlatform();
  const db = await getDb();
  const token = await issueToken(db, { accountId: platform.accountId, kind: "secret", name });
  return { ...token, accountId: platform.accountId };
}
