/**
 * The event catalogue of the spec: the one list of event types, each with the aggregate (entity
 * type) its events belong to. Validation, OpenAPI enums and the dashboard's picker all read it.
 */
export const EVENT_CATALOGUE = [
  { group: "Payment", aggregateType: "payment", types: ["payment.succeeded", "payment.failed", "payment.refunded"] },
  {
    group: "Checkout session",
    aggregateType: "checkout_session",
    types: [
      "checkout.session.created",
      "checkout.session.updated",
      "checkout.session.deleted",
      "checkout.session.completed",
      "checkout.session.expired",
    ],
  },
  {
    group: "Payment intent",
    aggregateType: "payment_intent",
    types: [
      "payment_intent.created",
      "payment_intent.processing",
      "payment_intent.requires_action",
      "payment_intent.amount_capturable_updated",
      "payment_intent.succeeded",
      "payment_intent.canceled",
      "payment_intent.payment_failed",
      "payment_intent.partially_funded",
    ],
  },
  {
    group: "Subscription",
    aggregateType: "subscription",
    types: [
      "customer.subscription.created",
      "customer.subscription.updated",
      "customer.subscription.paused",
      "customer.subscription.resumed",
      "customer.subscription.cancelled",
      "customer.subscription.trial_will_end",
    ],
  },
  {
    group: "Invoice",
    aggregateType: "invoice",
    types: [
      "invoice.created",
      "invoice.finalized",
      "invoice.paid",
      "invoice.payment_succeeded",
      "invoice.payment_failed",
      "invoice.payment_action_required",
      "invoice.overdue",
      "invoice.voided",
      "invoice.marked_uncollectible",
      "invoice.refunded",
      "invoice.upcoming",
    ],
  },
  { group: "Customer", aggregateType: "customer", types: ["customer.created", "customer.updated", "customer.deleted"] },
  {
    group: "Customer discount",
    aggregateType: "customer_discount",
    types: ["customer.discount.created", "customer.discount.updated", "customer.discount.deleted"],
  },
  { group: "Coupon", aggregateType: "coupon", types: ["coupon.created", "coupon.updated", "coupon.deleted"] },
  { group: "Price", aggregateType: "price", types: ["price.created", "price.updated", "price.deleted"] },
  { group: "Product", aggregateType: "product", types: ["product.created", "product.updated", "product.deleted"] },
  { group: "Refund", aggregateType: "refund", types: ["refund.created", "refund.updated", "refund.failed"] },
] as const;

type Catalogue = typeof EVENT_CATALOGUE;
export type EventType = Catalogue[number]["types"][number];
export type AggregateType = Catalogue[number]["aggregateType"];

export const EVENT_TYPES: readonly EventType[] = EVENT_CATALOGUE.flatMap((group) => group.types);
export const AGGREGATE_TYPES: readonly AggregateType[] = EVENT_CATALOGUE.map((group) => group.aggregateType);

const AGGREGATE_OF = new Map<string, AggregateType>(
  EVENT_CATALOGUE.flatMap((group) => group.types.map((type) => [type, group.aggregateType] as const)),
);

export function aggregateTypeOf(type: EventType): AggregateType {
  return AGGREGATE_OF.get(type)!;
}

export function isEventType(value: string): value is EventType {
  return AGGREGATE_OF.has(value);
}

/** The current schema version of the event format (the Event object's `version`). */
export const EVENT_FORMAT_VERSION = 1;
