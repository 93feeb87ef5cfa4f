import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { DateTime, Metadata, MetadataPatch } from "@/lib/schemas";
import { TaxRateIds } from "@/lib/tax-rates/schema";
import { PendingChange } from "@/lib/subscription-changes/schema";
import { COLLECTION_METHODS, CollectionMethodSchema, DaysUntilDue, refineDaysUntilDue } from "@/lib/invoices/schema";
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from "./statuses";

export { SUBSCRIPTION_STATUSES, type SubscriptionStatus };


export const MAX_ITEMS = 20;
export const MAX_TRIAL_DAYS = 730;

/** The quantity column is a 32-bit integer. */
const Quantity = z
  .int({ error: "Must be a whole number from 1 to 2147483647." })
  .min(1, "Must be 1 or more.")
  .max(2_147_483_647, "Must be at most 2147483647.")
  .meta({ description: "Default 1." });

/** A trial's length in whole days (subscriptions, and checkout sessions that start one). */
export const TrialPeriodDays = z
  .int({ error: `Must be a whole number of days from 1 to ${MAX_TRIAL_DAYS}.` })
  .min(1, `Must be from 1 to ${MAX_TRIAL_DAYS}.`)
  .max(MAX_TRIAL_DAYS, `Must be from 1 to ${MAX_TRIAL_DAYS}.`);

const DefaultPaymentMethod = z.string().min(1).meta({
  description:
    "The payment method that collects renewal invoices automatically, off-session: one saved for the subscription's customer (`pm_…` of POST /customers/{id}/payment-methods, charged by the processor that holds it), or a sandbox payment method (sandbox accounts only). Failed collection starts dunning. Null or absent: invoices are paid by the merchant (pay endpoint, out of band).",
  example: "pm_sandbox_succeeds",
});

export const SubscriptionItemInput = z
  .strictObject({
    price: z.string().min(1).meta({ description: "An active recurring price (`price_…`) of this account." }),
    quantity: Quantity.optional(),
    tax_rates: TaxRateIds.optional().meta({
      description: "The item's tax rates (`txr_…`), applied to its invoice lines. Absent: the customer's default rate, else the account's.",
    }),
  })
  .meta({ id: "SubscriptionItemInput" });

export const SubscriptionCreateInput = z
  .strictObject({
    customer: z.string().min(1).meta({ description: "The customer (`cus_…`) of this account." }),
    items: z
      .array(SubscriptionItemInput)
      .min(1, "At least one item.")
      .max(MAX_ITEMS, `At most ${MAX_ITEMS} items.`)
      .meta({ description: "Recurring prices, all in one currency and with one interval." }),
    trial_period_days: TrialPeriodDays.optional(),
    trial_end: DateTime.optional().meta({ description: "End of the trial, in the future; excludes `trial_period_days`." }),
    default_payment_method: DefaultPaymentMethod.optional(),
    collection_method: CollectionMethodSchema.optional(),
    days_until_due: DaysUntilDue.optional(),
    metadata: Metadata.optional(),
  })
  .superRefine((input, issues) => {
    refineDaysUntilDue(input, issues);
    if (input.trial_period_days !== undefined && input.trial_end !== undefined) {
      issues.addIssue({ code: "custom", path: ["trial_end"], message: "Give trial_end or trial_period_days, not both." });
    }
  })
  .meta({ id: "SubscriptionCreateInput" });

export const SubscriptionUpdateInput = z
  .strictObject({
    metadata: MetadataPatch.optional(),
    cancel_at_period_end: z.boolean().optional().meta({ description: "True: cancel when the current period ends." }),
    default_payment_method: DefaultPaymentMethod.nullable().optional(),
    collection_method: CollectionMethodSchema.optional(),
    days_until_due: DaysUntilDue.optional().meta({
      description: "`send_invoice` only: the days its next invoices are due after finalization. Give it with `collection_method: send_invoice`, or alone on a `send_invoice` subscription (else 422).",
    }),
  })
  .meta({ id: "SubscriptionUpdateInput" });

export const SubscriptionCancelInput = z
  .strictObject({
    at_period_end: z.boolean().optional().meta({ description: "True: cancel when the current period ends. Default false (now)." }),
    effective: z.enum(["now", "period_end"], { error: "Must be one of now, period_end." }).optional().meta({
      description: "The same choice in the words of change requests: `period_end` is `at_period_end: true`, `now` is false. Give one of the two, or both agreeing.",
    }),
  })
  .superRefine((input, issues) => {
    if (input.effective !== undefined && input.at_period_end !== undefined && (input.effective === "period_end") !== input.at_period_end) {
      issues.addIssue({ code: "custom", path: ["effective"], message: "effective and at_period_end disagree; give one of them." });
    }
  })
  .meta({ id: "SubscriptionCancelInput" });

export const SubscriptionActionInput = z.strictObject({}).meta({ id: "SubscriptionActionInput" });

export const SubscriptionItemUpdateInput = z
  .strictObject({ quantity: Quantity })
  .meta({ id: "SubscriptionItemUpdateInput" });

export const SubscriptionItem = z
  .object({
    id: z.string().meta({ example: "si_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("subscription_item"),
    subscription: z.string(),
    price: z.string(),
    quantity: z.number().int(),
    tax_rates: z.array(z.string()).meta({ description: "The item's tax rates; empty: the defaults apply." }),
  })
  .meta({ id: "SubscriptionItem" });

export const Subscription = z
  .object({
    id: z.string().meta({ example: "sub_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("subscription"),
    customer: z.string(),
    status: z.enum(SUBSCRIPTION_STATUSES),
    currency: z.string(),
    items: z.array(z.object({ id: z.string(), price: z.string(), quantity: z.number().int() })),
    current_period_start: DateTime,
    current_period_end: DateTime,
    trial_end: DateTime.nullable(),
    cancel_at_period_end: z.boolean(),
    pending_changes: z.array(PendingChange).meta({
      description:
        "Change requests scheduled for the period end (`effective: period_end`, applied), in the order the renewal applies them before it invoices the new period. Cancelling the subscription drops them.",
    }),
    cancelled_at: DateTime.nullable(),
    paused_at: DateTime.nullable(),
    latest_invoice: z.string().nullable().meta({ description: "The newest invoice (`in_…`) it produced." }),
    default_payment_method: z.string().nullable(),
    collection_method: z.enum(COLLECTION_METHODS).meta({
      description: "`send_invoice`: its invoices are emailed at finalization and wait for the customer's payment (never charged, no dunning).",
    }),
    days_until_due: z.number().int().nullable().meta({ description: "`send_invoice`: its invoices are due this many days after finalization; null for `charge_automatically`." }),
    metadata: z.record(z.string(), z.string()),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "Subscription" });

export const SubscriptionList = listEnvelopeSchema(Subscription, "SubscriptionList");
export const SubscriptionItemList = listEnvelopeSchema(SubscriptionItem, "SubscriptionItemList");

export const SubscriptionListQuery = PaginationQuery.extend({
  customer: z.string().min(1).optional().meta({ description: "Only this customer's subscriptions." }),
  status: z
    .enum(SUBSCRIPTION_STATUSES, { error: `status must be one of ${SUBSCRIPTION_STATUSES.join(", ")}.` })
    .optional(),
});

export type SubscriptionObject = z.input<typeof Subscription>;
export type SubscriptionItemObject = z.input<typeof SubscriptionItem>;
