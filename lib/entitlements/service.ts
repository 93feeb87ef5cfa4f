import { and, eq, isNull } from "drizzle-orm";
import { getDb } from "@/db/client";
import { customers } from "@/db/schema";
import type { Verb } from "@/lib/context";
import { notFound } from "@/lib/errors";
import { announcedEntitlements, computeEntitlements, entitlementsState } from "./core";

/** `GET /customers/{id}/entitlements`: computed live at the account's time (the grace counts by the test clock). */
export async function getCustomerEntitlements({ ctx, input }: Verb<{ customer: string }>) {
  const db = await getDb();
  const [customer] = await db
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.accountId, ctx.accountId), eq(customers.id, input.customer), isNull(customers.deletedAt)));
  if (!customer) throw notFound("customer", input.customer);
  const [live, announced] = await Promise.all([
    computeEntitlements(db, ctx.accountId, customer.id, ctx.now()),
    announcedEntitlements(db, ctx.accountId, customer.id),
  ]);
  const state = entitlementsState(customer.id, live, ctx.livemode);
  const grantOf = (item: (typeof live)[number]) =>
    announced.find((old) => old.feature === item.feature && old.source_subscription === item.source_subscription)?.granted_by_event ?? null;
  return { ...state, items: state.items.map((item) => ({ ...item, granted_by_event: grantOf(item) })) };
}
