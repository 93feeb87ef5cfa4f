import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { DateTime, Metadata } from "@/lib/schemas";
import { CHANGE_REQUEST_STATUSES, PRORATION_BEHAVIORS, type ChangeRequestStatus } from "./statuses";

export { CHANGE_REQUEST_STATUSES, type ChangeRequestStatus };
/** When an applied change request takes effect: at once, or at the end of the current period (the renewal applies it). */
export const CHANGE_EFFECTS = ["now", "period_end"] as const;
export type ChangeEffect = (typeof CHANGE_EFFECTS)[number];
export const CANCELLATION_REASONS = ["requested", "subscription_cancelled", "no_longer_applies"] as const;
export { PRORATION_BEHAVIORS };

/** Enough for replacing every one of 20 items (20 removals + 20 additions) with room to spare. */
export const MAX_STEPS = 50;

/** The quantity column is a 32-bit integer (as for subscription items). */
const Quantity = z
  .int({ error: "Must be a whole number from 1 to 2147483647." })
  .min(1, "Must be 1 or more.")
  .max(2_147_483_647, "Must be at most 2147483647.");

const ItemRef = z.string().min(1).meta({ description: "A current item (`si_…`) of the subscription." });
const PriceRef = z.string().min(1).meta({ description: "An active recurring price (`price_…`) on the subscription's currency and interval." });

export const ChangeStepInput = z
  .discriminatedUnion("type", [
    z
      .strictObject({ type: z.literal("switch_price"), item: ItemRef, price: PriceRef })
      .meta({
        title: "switch_price",
        description: "From a metered price: the usage so far is billed at it on the next invoice. To a metered price: its usage counts from the change on, and the item's quantity becomes 1.",
      }),
    z
      .strictObject({ type: z.literal("set_quantity"), item: ItemRef, quantity: Quantity })
      .meta({ title: "set_quantity", description: "Not for a metered item (it has no quantity: 422)." }),
    z
      .strictObject({
        type: z.literal("add_item"),
        price: PriceRef,
        quantity: Quantity.optional().meta({ description: "Default 1. Not with a metered price (422): its usage is billed." }),
      })
      .meta({ title: "add_item", description: "A metered price bills its meter's usage from the change on." }),
    z
      .strictObject({ type: z.literal("remove_item"), item: ItemRef })
      .meta({ title: "remove_item", description: "A metered item's usage so far is billed at its price on the next invoice." }),
  ])
  .meta({ id: "SubscriptionChangeStepInput" });

export type ChangeStepInputValue = z.output<typeof ChangeStepInput>;

export const ChangeRequestCreateInput = z
  .strictObject({
    steps: z
      .array(ChangeStepInput)
      .min(1, "At least one step.")
      .max(MAX_STEPS, `At most ${MAX_STEPS} steps.`)
      .meta({ description: "Item changes, applied in this order; every intermediate state must be a valid subscription." }),
    effective: z.enum(CHANGE_EFFECTS, { error: `Must be one of ${CHANGE_EFFECTS.join(", ")}.` }).optional().meta({
      description:
        "`now`: applying it changes the items at once (proration collected first). `period_end`: applying it schedules it (`scheduled`, listed in the subscription's `pending_changes`) and the renewal applies it before the new period's invoice; nothing is prorated. Absent: the account's `plan_change_policy` decides.",
    }),
    proration_behavior: z
      .enum(PRORATION_BEHAVIORS, { error: `Must be one of ${PRORATION_BEHAVIORS.join(", ")}.` })
      .optional()
      .meta({
        description:
          "How the rest of the current period is prorated (default `create_prorations`). `create_prorations`: a net increase is charged now (`amount_due_now_atom`, paid before the steps are applied); a net decrease credits the unused time, floor(|Δ per-period amount| × remaining / period length), to the customer's balance when the last step is applied. `always_invoice`: the net is settled at once, the same way (an invoice cannot be negative here, so a net decrease is the same balance credit, which Stripe's negative invoice also becomes). `none`: nothing is charged or credited. With `period_end` nothing is prorated whatever it says (the change starts with the next period).",
      }),
    metadata: Metadata.optional(),
  })
  .meta({ id: "SubscriptionChangeRequestCreateInput" });

export const ChangeRequestApplyInput = z
  .strictObject({
    payment_method: z.string().min(1).optional().meta({
      description:
        "Sandbox payment method that pays `amount_due_now_atom`; default the subscription's `default_payment_method`. Required when something is due and the subscription has none.",
      example: "pm_sandbox_succeeds",
    }),
    sandbox_fail_step: z
      .int({ error: "Must be a step index (0-based)." })
      .min(0, "Must be a step index (0-based).")
      .optional()
      .meta({
        description:
          "Sandbox accounts only (422 on live accounts): the 0-based index of a step that fails during this call, after the payment was collected, to exercise `PARTIAL_APPLY_RETRYABLE`. A later apply without it resumes.",
      }),
  })
  .meta({ id: "SubscriptionChangeRequestApplyInput" });

export const ChangeRequestCancelInput = z.strictObject({}).meta({ id: "SubscriptionChangeRequestCancelInput" });

export const ChangePlanInput = z
  .strictObject({
    price: PriceRef,
    quantity: Quantity.optional().meta({ description: "Default 1. Not with a metered price (422)." }),
    payment_method: z.string().min(1).optional().meta({ description: "As for applying a change request." }),
  })
  .meta({ id: "ChangeSubscriptionPlanInput" });

export const ChangeStep = z
  .object({
    type: z.enum(["switch_price", "set_quantity", "add_item", "remove_item"]),
    item: z.string().nullable().meta({ description: "The item acted on; for `add_item`, the new item once applied (null before)." }),
    price: z.string().nullable(),
    quantity: z.number().int().nullable(),
    state: z.enum(["pending", "applied"]),
  })
  .meta({ id: "SubscriptionChangeStep" });

export const ChangeRequest = z
  .object({
    id: z.string().meta({ example: "scr_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("subscription_change_request"),
    subscription: z.string(),
    status: z.enum(CHANGE_REQUEST_STATUSES),
    steps: z.array(ChangeStep),
    amount_due_now_atom: z.number().int().meta({
      description:
        "Collected before the steps are applied, fixed at creation: the positive part of `proration_amount_atom`, floor(max(0, Δ per-period amount) × remaining / period length); 0 for a net decrease, with `proration_behavior: none`, while trialing or paused, and for `period_end` (the change starts with the next period). Before the customer's discount. Metered items count 0 (their usage is billed in arrears).",
    }),
    proration_behavior: z.enum(PRORATION_BEHAVIORS).meta({ description: "As given at creation (default `create_prorations`)." }),
    proration_amount_atom: z.number().int().meta({
      description:
        "The signed proration this request applies, fixed at creation (shown before it is applied): > 0 is charged now (equals `amount_due_now_atom`), < 0 is credited to the customer's balance (its magnitude is `proration_credit_atom`). |value| = floor(|Δ per-period amount| × remaining / period length). 0 with `none`, while trialing or paused, and for `period_end`.",
    }),
    proration_credit_atom: z.number().int().min(0).meta({
      description:
        "Credited to the customer's balance (in `currency`) in the same transaction as the last step: −`proration_amount_atom` when it is negative, else 0. The balance applies it to the customer's next finalized invoice.",
    }),
    balance_transaction: z.string().nullable().meta({
      description: "The customer balance transaction (`cbtxn_…`, type `proration`) that credited `proration_credit_atom`, once applied; null before and when nothing is credited.",
    }),
    next_invoice_amount_atom: z.number().int().meta({ description: "The licensed items after the change for one period, before discounts; metered items' usage is not included." }),
    amount_due_now_total_atom: z.number().int().nullable().meta({
      description:
        "What is charged now, as the proration invoice applying it will total: `amount_due_now_atom` after the customer's discount, with the taxes (the same computation as finalization), fixed at creation; 0 when nothing is due now. The customer's balance, if any, is applied to that invoice. Null on change requests made before it existed.",
    }),
    next_invoice_total_atom: z.number().int().nullable().meta({
      description:
        "The next renewal invoice's total as previewed at creation (`POST /invoices/preview` with this change): the items after it (and after the changes already pending), the metered usage so far, the customer's discount in force then, the taxes. Null when the subscription does not renew (cancelled at the period end, paused), and on change requests made before it existed.",
    }),
    currency: z.string(),
    proration_date: DateTime.meta({ description: "The instant the proration was computed for (the account's clock at creation)." }),
    invoice: z.string().nullable().meta({ description: "The proration invoice (`in_…`), once apply created it." }),
    payment_collected_at: DateTime.nullable(),
    applied_steps: z.number().int(),
    applied_at: DateTime.nullable(),
    last_error: z.string().nullable().meta({
      description: "Why the last apply stopped (payment failure, failed step), or why the renewal dropped a scheduled one; null once applied.",
    }),
    effective: z.enum(CHANGE_EFFECTS).meta({ description: "`now`, or `period_end`: applying it schedules it for the renewal." }),
    effective_at: DateTime.nullable().meta({
      description: "For `period_end`: the end of the period it was scheduled for (set when applied; the renewal at that instant applies it). Null for `now`.",
    }),
    cancellation_reason: z.enum(CANCELLATION_REASONS).nullable().meta({
      description:
        "Once `canceled`: `requested` (the cancel operation), `subscription_cancelled` (its subscription was cancelled before a scheduled change ran), or `no_longer_applies` (at the renewal its steps no longer applied: `last_error` says why).",
    }),
    metadata: z.record(z.string(), z.string()),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "SubscriptionChangeRequest" });

export const ChangeRequestList = listEnvelopeSchema(ChangeRequest, "SubscriptionChangeRequestList");

export const ChangeRequestListQuery = PaginationQuery.extend({
  status: z
    .enum(CHANGE_REQUEST_STATUSES, { error: `status must be one of ${CHANGE_REQUEST_STATUSES.join(", ")}.` })
    .optional(),
});

/** A change scheduled for the period end, as the subscription lists it (`pending_changes`). */
export const PendingChange = z
  .object({
    change_request: z.string().meta({ description: "The `scheduled` change request (`scr_…`); cancel it to drop the change." }),
    steps: z.array(ChangeStep),
    effective_at: DateTime.meta({ description: "When the renewal applies it: the current period's end." }),
  })
  .meta({ id: "SubscriptionPendingChange" });

export type ChangeRequestObject = z.input<typeof ChangeRequest>;
