import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { Currency, DateTime } from "@/lib/schemas";
import { ALERT_STATUSES, ALERT_TYPES } from "./statuses";

/*
 * Alerts (docs/usage-billing.md, "Alerts"): after Stripe's Billing Alerts (`usage_threshold`, a
 * customer filter, archive) with Orb's `cost_exceeded` and `credit_balance_depleted` as the other
 * two types.
 */

const Title = z.string().min(1).max(256).optional().meta({ description: "A name for the merchant's own use, shown in the dashboard." });
const CustomerFilter = z.string().min(1).optional().meta({ description: "Only this customer (`cus_…`); omitted: every customer, each evaluated and triggered on its own." });

export const AlertCreateInput = z
  .discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("usage_threshold"),
      title: Title,
      meter: z.string().min(1).meta({ description: "The meter (`mtr_…`) whose usage in the customer's period is compared." }),
      customer: CustomerFilter,
      threshold: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).meta({ description: "Triggers when the meter's value in the period reaches this (≥).", example: 1000 }),
    }),
    z.strictObject({
      type: z.literal("spend_threshold"),
      title: Title,
      customer: CustomerFilter,
      threshold_atom: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).meta({ description: "Triggers when the customer's upcoming invoice total in `currency` reaches this (≥), in atoms.", example: 50000 }),
      currency: Currency,
    }),
    z.strictObject({
      type: z.literal("credit_balance"),
      title: Title,
      customer: CustomerFilter,
      below_atom: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).meta({ description: "Triggers when the customer's credit in `currency` is below this, in atoms.", example: 1000 }),
      currency: Currency,
    }),
  ])
  .meta({ id: "AlertCreateInput", description: "One of the three alert types; `customer` narrows it to one customer." });

export const Alert = z
  .object({
    object: z.literal("alert"),
    id: z.string().meta({ example: "alrt_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    type: z.enum(ALERT_TYPES),
    title: z.string().nullable(),
    status: z.enum(ALERT_STATUSES).meta({ description: "`active` alerts are evaluated; `archived` ones never again." }),
    customer: z.string().nullable().meta({ description: "The one customer it applies to; null: every customer." }),
    meter: z.string().nullable().meta({ description: "usage_threshold: the meter." }),
    threshold: z.number().int().nullable().meta({ description: "usage_threshold: the meter's value at which it triggers." }),
    threshold_atom: z.number().int().nullable().meta({ description: "spend_threshold: the upcoming invoice total at which it triggers, in atoms." }),
    below_atom: z.number().int().nullable().meta({ description: "credit_balance: it triggers when the credit is below this, in atoms." }),
    currency: z.string().nullable().meta({ description: "spend_threshold and credit_balance: the currency of the amounts." }),
    livemode: z.boolean(),
    created: DateTime,
    archived_at: DateTime.nullable(),
  })
  .meta({ id: "Alert", description: "A usage, spend or credit-balance threshold, evaluated per customer and billing period." });

export type AlertObject = z.input<typeof Alert>;
export const AlertList = listEnvelopeSchema(Alert, "AlertList");

export const AlertListQuery = PaginationQuery.extend({
  customer: z.string().min(1).optional().meta({ description: "Only alerts of this customer (not those of every customer)." }),
  status: z.enum(ALERT_STATUSES).optional(),
});

export const AlertTrigger = z
  .object({
    object: z.literal("alert_trigger"),
    id: z.string().meta({ example: "atrg_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    alert: z.string().meta({ description: "The alert (`alrt_…`)." }),
    alert_type: z.enum(ALERT_TYPES),
    customer: z.string(),
    meter: z.string().nullable().meta({ description: "usage_threshold: the meter." }),
    currency: z.string().nullable().meta({ description: "spend_threshold and credit_balance: the currency of `value` and `threshold`." }),
    value: z.number().int().meta({ description: "The value that crossed: the meter's usage in the period, the upcoming invoice total (atoms) or the credit balance (atoms)." }),
    threshold: z.number().int().meta({ description: "The alert's threshold: `threshold`, `threshold_atom` or `below_atom`." }),
    period_start: DateTime,
    period_end: DateTime,
    resolved_at: DateTime.nullable().meta({ description: "When the period ended (`alert.resolved`); null while it lasts." }),
    livemode: z.boolean(),
    created: DateTime.meta({ description: "When it triggered (`alert.triggered`)." }),
  })
  .meta({ id: "AlertTrigger", description: "An alert that triggered for a customer in one billing period: the object of `alert.triggered` and `alert.resolved`." });

export type AlertTriggerObject = z.input<typeof AlertTrigger>;
export const AlertTriggerList = listEnvelopeSchema(AlertTrigger, "AlertTriggerList");

export const AlertTriggerListQuery = PaginationQuery.extend({
  customer: z.string().min(1).optional().meta({ description: "Only this customer's triggers." }),
  alert: z.string().min(1).optional().meta({ description: "Only this alert's triggers." }),
});
