import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { DateTime, Metadata, MetadataPatch } from "@/lib/schemas";
import { TrialPeriodDays } from "@/lib/subscriptions/schema";
import { DAY_MS, MINUTE_MS } from "@/lib/time";
import { CHECKOUT_STATUSES, PAYMENT_STATUSES, type CheckoutStatus } from "./statuses";

export { CHECKOUT_STATUSES, PAYMENT_STATUSES, type CheckoutStatus };

export const CHECKOUT_MODES = ["payment", "subscription"] as const;

export const MAX_LINE_ITEMS = 20;
/** Stripe's window: a session lives at least 30 minutes and at most 24 hours. */
export const MIN_LIFETIME_MS = 30 * MINUTE_MS;
export const MAX_LIFETIME_MS = DAY_MS;
/** Stripe's template in `success_url`, replaced by the session id on the redirect. */
export const SESSION_ID_TEMPLATE = "{CHECKOUT_SESSION_ID}";

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.host !== "";
  } catch {
    return false;
  }
}

const RedirectUrl = z
  .string()
  .max(2048, "At most 2048 characters.")
  .refine(isHttpUrl, "Must be an absolute http:// or https:// URL.");

const Email = z.email().max(254).meta({ example: "jenny@example.com" });

const Quantity = z
  .int({ error: "Must be a whole number from 1 to 2147483647." })
  .min(1, "Must be 1 or more.")
  .max(2_147_483_647, "Must be at most 2147483647.")
  .meta({ description: "Default 1." });

export const CheckoutLineItemInput = z
  .strictObject({
    price: z.string().min(1).meta({ description: "An active price (`price_…`) of an active product of this account." }),
    quantity: Quantity.optional(),
  })
  .meta({ id: "CheckoutLineItemInput" });

export const CheckoutSessionCreateInput = z
  .strictObject({
    mode: z.enum(CHECKOUT_MODES).meta({
      description: "`payment`: one-time prices paid once. `subscription`: recurring prices on one schedule, starting a subscription.",
    }),
    line_items: z
      .array(CheckoutLineItemInput)
      .min(1, "At least one line item.")
      .max(MAX_LINE_ITEMS, `At most ${MAX_LINE_ITEMS} line items.`)
      .meta({ description: "What the customer buys: all in one currency (and, in subscription mode, one interval)." }),
    success_url: RedirectUrl.meta({
      description: `Where the page sends the customer after paying. \`${SESSION_ID_TEMPLATE}\` in it is replaced by the session id.`,
      example: "https://example.com/thanks?session_id={CHECKOUT_SESSION_ID}",
    }),
    cancel_url: RedirectUrl.optional().meta({ description: "Where the page's cancel link (and an expired session) leads back to." }),
    customer: z.string().min(1).optional().meta({
      description: "An existing customer (`cus_…`) who pays. Secret tokens only. Excludes `customer_email`.",
    }),
    customer_email: Email.optional().meta({ description: "Prefills and locks the page's email field." }),
    expires_at: DateTime.optional().meta({
      description: "30 minutes to 24 hours after the account's current time. Default: 24 hours after it.",
    }),
    subscription_data: z
      .strictObject({
        trial_period_days: TrialPeriodDays.optional(),
      })
      .optional()
      .meta({ description: "Subscription mode only." }),
    payment_intent_data: z
      .strictObject({
        setup_future_usage: z.enum(["off_session"]).optional().meta({
          description:
            "`off_session`: the card the customer pays with is saved for them (a `pm_…` on `GET /customers/{id}/payment-methods`, `payment_method.attached`), to be charged later without them. Applies when the page is paid through the account's connected processor (Stripe).",
        }),
      })
      .optional()
      .meta({ description: "Payment mode only: how the payment is made, as Stripe's `payment_intent_data`." }),
    metadata: Metadata.optional(),
  })
  .superRefine((input, issues) => {
    if (input.customer !== undefined && input.customer_email !== undefined) {
      issues.addIssue({ code: "custom", path: ["customer_email"], message: "Give customer or customer_email, not both." });
    }
    if (input.mode === "payment" && input.subscription_data !== undefined) {
      issues.addIssue({ code: "custom", path: ["subscription_data"], message: "Only in subscription mode." });
    }
    if (input.mode !== "payment" && input.payment_intent_data !== undefined) {
      issues.addIssue({ code: "custom", path: ["payment_intent_data"], message: "Only in payment mode." });
    }
  })
  .meta({ id: "CheckoutSessionCreateInput" });

export const CheckoutSessionUpdateInput = z
  .strictObject({
    metadata: MetadataPatch.optional(),
    customer_email: Email.nullable().optional().meta({ description: "Null removes it. Not with a session for a `customer`." }),
  })
  .meta({ id: "CheckoutSessionUpdateInput" });

export const CheckoutSessionExpireInput = z.strictObject({}).meta({ id: "CheckoutSessionExpireInput" });

export const CheckoutSessionCompleteInput = z
  .strictObject({
    email: Email.optional().meta({
      description: "The paying customer's email; required unless the session names a customer or a customer_email (then ignored).",
    }),
    payment_method: z.string().min(1).meta({
      description: "A sandbox payment method: pm_sandbox_succeeds, pm_sandbox_declined, pm_sandbox_requires_action or pm_sandbox_refund_fails.",
      example: "pm_sandbox_succeeds",
    }),
  })
  .meta({ id: "CheckoutSessionCompleteInput" });

export const CheckoutLineItem = z
  .object({
    price: z.string(),
    quantity: z.number().int(),
    description: z.string().nullable().meta({ description: "The product's name (and the price's nickname) at creation." }),
    unit_amount_atom: z.number().int(),
    amount_atom: z.number().int().meta({ description: "The price for the quantity: unit_amount_atom × quantity, or a tiered price's tiers for the quantity (then unit_amount_atom is 0)." }),
  })
  .meta({ id: "CheckoutLineItem" });

export const CheckoutSession = z
  .object({
    id: z.string().meta({ example: "cs_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("checkout_session"),
    mode: z.enum(CHECKOUT_MODES),
    status: z.enum(CHECKOUT_STATUSES),
    payment_status: z.enum(PAYMENT_STATUSES).meta({
      description: "`paid` once complete with a payment; `no_payment_required` for a subscription that starts with a trial; else `unpaid`.",
    }),
    url: z.string().meta({ description: "The hosted checkout page: send the customer's browser there." }),
    success_url: z.string(),
    cancel_url: z.string().nullable(),
    customer: z.string().nullable().meta({ description: "Named at creation, else the customer found or created at completion." }),
    customer_email: z.string().nullable(),
    currency: z.string(),
    line_items: z.array(CheckoutLineItem),
    amount_total_atom: z.number().int().meta({ description: "Sum of the line items (a subscription's first period, before a customer discount)." }),
    subscription_data: z.object({ trial_period_days: z.number().int().nullable() }).nullable(),
    payment_intent: z.string().nullable().meta({ description: "The payment intent that paid it (payment mode, or the subscription's first invoice)." }),
    subscription: z.string().nullable().meta({ description: "The subscription it started (subscription mode)." }),
    invoice: z.string().nullable().meta({ description: "The subscription's first invoice (none with a trial)." }),
    expires_at: DateTime,
    completed_at: DateTime.nullable(),
    expired_at: DateTime.nullable(),
    metadata: z.record(z.string(), z.string()),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "CheckoutSession" });

export const DeletedCheckoutSession = z
  .object({ id: z.string(), object: z.literal("checkout_session"), deleted: z.literal(true) })
  .meta({ id: "DeletedCheckoutSession" });

export const CheckoutCompletion = z
  .object({
    object: z.literal("checkout_completion"),
    checkout_session: z.string(),
    status: z.enum(CHECKOUT_STATUSES).meta({ description: "`complete` when paid; `open` when this attempt failed (try another method)." }),
    payment_status: z.enum(PAYMENT_STATUSES),
    redirect_url: z.string().nullable().meta({ description: "Once complete: the success URL to send the browser to." }),
    last_payment_error: z.string().nullable().meta({ description: "Why this attempt failed, for the customer." }),
  })
  .meta({ id: "CheckoutCompletion" });

export const CheckoutSessionList = listEnvelopeSchema(CheckoutSession, "CheckoutSessionList");

export const CheckoutSessionListQuery = PaginationQuery.extend({
  status: z.enum(CHECKOUT_STATUSES, { error: `status must be one of ${CHECKOUT_STATUSES.join(", ")}.` }).optional(),
  customer: z.string().min(1).optional().meta({ description: "Only this customer's sessions." }),
});

export type CheckoutSessionObject = z.input<typeof CheckoutSession>;
export type CheckoutCompletionObject = z.input<typeof CheckoutCompletion>;
