import type { AggregateType, EventType } from "@/lib/events/catalogue";
import { aggregateTypeOf } from "@/lib/events/catalogue";
import { newId, type IdKind } from "@/lib/ids";
import SAMPLES from "./samples.json";

type State = Record<string, unknown>;
type Sample = { data: State; previous_data: State | null };

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
};

/**
 * A realistic event of `type`: samples.json holds, per type, an entity state the app's own
 * serializers produced in the event catalogue's real flows (tests/api/webhook-test-events.test.ts
 * checks they still have every field the serializers emit). The entity gets a fresh id, so each
 * sample is an entity of its own; ids it refers to (a customer, a price) name sample objects.
 */
export function sampleEvent(type: EventType, livemode: boolean): { aggregateId: string; data: State; previousData: State | null } {
  const sample = (SAMPLES as Record<string, Sample>)[type]!;
  const original = String(sample.data.id);
  const aggregateId = newId(KIND[aggregateTypeOf(type)]);
  const rename = (state: State | null): State | null => {
    if (!state) return null;
    const renamed = JSON.parse(JSON.stringify(state).replaceAll(JSON.stringify(original), JSON.stringify(aggregateId))) as State;
    return "livemode" in renamed ? { ...renamed, livemode } : renamed;
  };
  return { aggregateId, data: rename(sample.data)!, previousData: rename(sample.previous_data) };
}
