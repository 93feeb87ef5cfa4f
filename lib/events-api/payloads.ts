import { z } from "zod";
import { AccountSettings } from "@/lib/account-settings/schema";
import { CheckoutSession } from "@/lib/checkout/schema";
import { Coupon } from "@/lib/coupons/schema";
import { Customer } from "@/lib/customers/schema";
import { CustomerBalanceTransaction } from "@/lib/customer-balance/schema";
import { CreditNote } from "@/lib/credit-notes/schema";
import { CustomerEntitlements, Feature, ProductFeature } from "@/lib/entitlements/schema";
import { Discount } from "@/lib/discounts/schema";
import { Invoice } from "@/lib/invoices/schema";
import { Meter } from "@/lib/meters/schema";
import { Payment, PaymentIntent } from "@/lib/payments/schema";
import { PaymentProcessor } from "@/lib/payment-processor/schema";
import { PortalConfiguration } from "@/lib/portal/schema";
import { Price } from "@/lib/prices/schema";
import { Product } from "@/lib/products/schema";
import { Refund } from "@/lib/refunds/schema";
import { TaxRate } from "@/lib/tax-rates/schema";
import { Subscription } from "@/lib/subscriptions/schema";
import { ChangeRequest } from "@/lib/subscription-changes/schema";
import { ApiToken } from "@/lib/api-tokens/schema";
import { AuditUser } from "@/lib/auth/schema";
import { AuditMember } from "@/lib/teams/schema";
import { WebhookEndpoint } from "@/lib/webhooks/schema";
import { aggregateTypeOf, EVENT_TYPES, type AggregateType, type EventType } from "@/lib/events/catalogue";
import { MANIFEST_AGGREGATE_SCHEMAS } from "./aggregate-schemas.generated";
import EXAMPLES from "@/lib/events/examples.json" with { type: "json" };

/**
 * The typed payloads of every event type, derived from the catalogue: an event's entity state is
 * its aggregate's own response schema (the one its operations answer with), so a type added to
 * the catalogue gets its schemas, its webhook in the OpenAPI document and its place in the unions
 * without a line here. A new aggregate type fails the typecheck until it names its schema.
 */
export const AGGREGATE_SCHEMAS = {
  payment: Payment,
  checkout_session: CheckoutSession,
  payment_intent: PaymentIntent,
  subscription: Subscription,
  invoice: Invoice,
  customer: Customer,
  customer_discount: Discount,
  coupon: Coupon,
  price: Price,
  product: Product,
  refund: Refund,
  api_token: ApiToken,
  webhook_endpoint: WebhookEndpoint,
  user: AuditUser,
  member: AuditMember,
  account_settings: AccountSettings,
  tax_rate: TaxRate,
  meter: Meter,
  feature: Feature,
  product_feature: ProductFeature,
  customer_entitlements: CustomerEntitlements,
  portal_configuration: PortalConfiguration,
  credit_note: CreditNote,
  customer_balance_transaction: CustomerBalanceTransaction,
  subscription_change_request: ChangeRequest,
  payment_processor: PaymentProcessor,
  // The domain folders' manifests (lib/<domain>/manifest.ts): their aggregates' schemas.
  ...MANIFEST_AGGREGATE_SCHEMAS,
} satisfies Record<AggregateType, z.ZodObject>;

type AggregateSchema = (typeof AGGREGATE_SCHEMAS)[AggregateType];

/** `invoice.payment_succeeded` → `InvoicePaymentSucceeded`: the stem of the type's component names. */
export function eventSchemaStem(type: EventType): string {
  return type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");
}

/** A `*.deleted` event carries the entity's last state marked `deleted: true` (as the delete operations answer). */
const isDeletion = (type: EventType) => type.endsWith(".deleted");

/** The component name of an aggregate's schema, e.g. `Invoice`. */
const componentId = (schema: z.ZodType) => String(schema.meta()?.id);

/** Made once per type: a schema with an `id` is one component, and zod's registry takes an id once. */
function memoized<T>(make: (type: EventType) => T): (type: EventType) => T {
  const made = new Map<EventType, T>();
  return (type) => {
    if (!made.has(type)) made.set(type, make(type));
    return made.get(type)!;
  };
}

/** The entity state an event of `type` carries: `data` of the Event, `data.object` of the webhook. */
export const entityStateSchema = memoized((type): AggregateSchema => {
  const aggregate = AGGREGATE_SCHEMAS[aggregateTypeOf(type)];
  if (!isDeletion(type)) return aggregate;
  // Typed as its aggregate: the extra `deleted` is what the document adds, not what callers read.
  return aggregate
    .extend({ deleted: z.literal(true) })
    .meta({ id: `${eventSchemaStem(type)}Object`, description: `The entity's last state, marked deleted.` }) as unknown as AggregateSchema;
});

/** By component id: two aggregates may carry the same schema (`api_token` and `api_key`: ApiToken). */
const previousOfAggregate = new Map<string, z.ZodObject>();

/**
 * `data.previous_attributes`: the changed top-level fields with their previous values
 * (lib/webhooks/payload.ts); a field absent before (a deletion's `deleted`) is null.
 */
export const previousAttributesSchema = memoized((type): z.ZodObject => {
  const aggregateType = aggregateTypeOf(type);
  const aggregate = AGGREGATE_SCHEMAS[aggregateType];
  if (isDeletion(type)) {
    return aggregate
      .partial()
      .extend({ deleted: z.null().optional() })
      .meta({ id: `${eventSchemaStem(type)}PreviousAttributes`, description: "The fields that changed, with their previous values." });
  }
  const id = `${componentId(aggregate)}PreviousAttributes`;
  if (!previousOfAggregate.has(id)) {
    previousOfAggregate.set(id, aggregate.partial().meta({ id, description: "The fields that changed, with their previous values." }));
  }
  return previousOfAggregate.get(id)!;
});

type RecordedExample = { event: Record<string, unknown>; webhook: Record<string, unknown> };

/** One real event per type, recorded by `npm run events:examples` (lib/events/examples.json). */
export const EVENT_EXAMPLES = EXAMPLES as Partial<Record<EventType, RecordedExample>>;

export const WEBHOOK_SEQUENCE = z.number().int().min(1).meta({
  description: "Position on the entity's timeline: 1 for its first event, then +1 exactly.",
});

/** The body a webhook delivery of `type` POSTs (lib/webhooks/payload.ts `webhookPayload`). */
function webhookEventSchema(type: EventType) {
  const example = EVENT_EXAMPLES[type]?.webhook;
  return z
    .object({
      id: z.string().meta({ description: "Event ID (prefix `evt_`)." }),
      object: z.literal("event"),
      type: z.literal(type),
      sequence: WEBHOOK_SEQUENCE,
      created: z.number().int().meta({ description: "Unix seconds." }),
      livemode: z.boolean(),
      test: z.literal(true).optional().meta({ description: "Present on sample events sent with \"send test event\" by type." }),
      data: z.object({
        object: entityStateSchema(type),
        previous_attributes: previousAttributesSchema(type)
          .optional()
          .meta({ description: "The fields that changed, with their previous values; on events that change an existing entity." }),
      }),
    })
    .meta({
      id: `${eventSchemaStem(type)}WebhookEvent`,
      description: `The webhook body of \`${type}\`.`,
      ...(example ? { example } : {}),
    });
}

export type WebhookEventSchema = ReturnType<typeof webhookEventSchema>;

export const WEBHOOK_EVENT_SCHEMAS = Object.fromEntries(
  EVENT_TYPES.map((type) => [type, webhookEventSchema(type)]),
) as Record<EventType, WebhookEventSchema>;

const webhookMembers = EVENT_TYPES.map((type) => WEBHOOK_EVENT_SCHEMAS[type]);

/** Any webhook body, discriminated by `type` (which narrows `data.object` to the aggregate's schema). */
export const WebhookEvent = z
  .discriminatedUnion("type", webhookMembers as [WebhookEventSchema, ...WebhookEventSchema[]])
  .meta({ id: "WebhookEvent", description: "Exactly the JSON body a webhook delivery of an event carries, by event type." });

export type WebhookEventBody = z.input<typeof WebhookEvent>;
