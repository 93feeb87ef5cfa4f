import { getDb } from "@/db/client";
import type { Verb } from "@/lib/context";
import { notFound } from "@/lib/errors";
import { entitlementsState, readEntitlements } from "./core";

/** `GET /customers/{id}/entitlements`: computed live at the account's time (the grace counts by the test clock). */
export async function getCustomerEntitlements({ ctx, input }: Verb<{ customer: string }>) {
  const read = await readEntitlements(await getDb(), ctx.accountId, input.customer, ctx.now());
  if (!read) throw notFound("customer", input.customer);
  const state = entitlementsState(input.customer, read.live, ctx.livemode);
  const grantOf = (item: (typeof state.items)[number]) =>
    read.announced.find((old) => old.feature === item.feature && old.source_subscription === item.source_subscription)?.granted_by_event ?? null;
  return { ...state, items: state.items.map((item) => ({ ...item, granted_by_event: grantOf(item) })) };
}
