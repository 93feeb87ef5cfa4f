import type { AggregateType, EventType } from "@/lib/events/catalogue";
import { aggregateTypeOf } from "@/lib/events/catalogue";
import { EVENT_EXAMPLES } from "@/lib/events-api/payloads";
import { newId, type IdKind } from "@/lib/ids";
import { MANIFEST_AGGREGATE_ID_KINDS } from "@/lib/manifests.generated";

type State = Record<string, unknown>;

const KIND: Record<AggregateType, IdKind> = {
  payment: "payment",
  checkout_session: "checkoutSession",
  payment_intent: "paymentIntent",
  subscription: "subscription",
  invoice: "invoice",
  customer: "customer",
  customer_discount: "customerDiscount",
  coupon: "coupon",
  price: "price",
  product: "product",
  refund: "refund",
  api_token: "apiToken",
  webhook_endpoint: "webhookEndpoint",
  user: "user",
  // A membership sample names a member (an invitation event names an `inv_` in real events).
  member: "user",
  account_settings: "account",
  tax_rate: "taxRate",
  meter: "meter",
  feature: "feature",
  product_feature: "productFeature",
  // A customer's entitlements are on the customer's id.
  customer_entitlements: "customer",
  // The account's one configuration is on the account's id.
  portal_configuration: "account",
  credit_note: "creditNote",
  customer_balance_transaction: "customerBalanceTransaction",
  subscription_change_request: "subscriptionChangeRequest",
  // The account's one connection is on the account's id.
  payment_processor: "account",
  // The domain folders' manifests (lib/<domain>/manifest.ts).
  ...MANIFEST_AGGREGATE_ID_KINDS,
};

/**
 * A realistic event of `type`: the entity state of the type's recorded example, the same one the
 * OpenAPI document shows (lib/events/examples.json, recorded from real flows by
 * `npm run events:examples`). The entity gets a fresh id, so each sample is an entity of its own;
 * ids it refers to (a customer, a price) name the recording's objects.
 */
export function sampleEvent(type: EventType, livemode: boolean): { aggregateId: string; data: State; previousData: State | null } {
  const example = EVENT_EXAMPLES[type];
  if (!example) throw new Error(`No recorded example of ${type}: run npm run events:examples.`);
  const recorded = example.event as { data: State; previous_data: State | null };
  const original = String(recorded.data.id);
  const aggregateId = newId(KIND[aggregateTypeOf(type)]);
  const rename = (state: State | null): State | null => {
    if (!state) return null;
    const renamed = JSON.parse(JSON.stringify(state).replaceAll(JSON.stringify(original), JSON.stringify(aggregateId))) as State;
    return "livemode" in renamed ? { ...renamed, livemode } : renamed;
  };
  return { aggregateId, data: rename(recorded.data)!, previousData: rename(recorded.previous_data) };
}
