import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { Currency, DateTime, Metadata, MetadataPatch } from "@/lib/schemas";

/**
 * `percent_off` arrives as a JSON number with at most 2 decimals. `round(p × 100) / 100 === p`
 * holds exactly for those (both sides are the nearest double to the same decimal), so the
 * conversion to basis points is exact and everything after it is integer arithmetic.
 */
export function percentToBps(percent: number): number {
  return Math.round(percent * 100);
}

export function bpsToPercent(bps: number): number {
  return bps / 100;
}

const PercentOff = z
  .number()
  .positive("Must be greater than 0.")
  .max(100, "Must be at most 100.")
  .refine((value) => percentToBps(value) / 100 === value, "At most 2 decimals (basis points).")
  .meta({ description: "Percentage taken off, > 0 and ≤ 100, at most 2 decimals.", example: 25.5 });

const AmountOffAtom = z
  .int("Must be an integer number of atoms.")
  .positive("Must be greater than 0.")
  .meta({ description: "Fixed amount taken off, in atoms of `currency`.", example: 500 });


const DURATIONS = ["once", "repeating", "forever"] as const;
const DURATION_DESCRIPTION = "How long a discount with this coupon applies: one invoice, `duration_in_months`, or for ever.";
const Duration = z.enum(DURATIONS).meta({ description: DURATION_DESCRIPTION });

const Name = z.string().min(1).max(256).nullable();

const MAX_INT4 = 2_147_483_647;

/** An issue that `parseBody` turns into a 400 "missing required field" (conditionally required). */
function missing(ctx: z.RefinementCtx, field: string, message: string): void {
  ctx.addIssue({ code: "invalid_type", expected: "number", input: undefined, path: [field], message });
}

function conflicting(ctx: z.RefinementCtx, field: string, message: string): void {
  ctx.addIssue({ code: "custom", path: [field], message });
}

export const CouponCreateInput = z
  .strictObject({
    name: Name.optional(),
    percent_off: PercentOff.optional(),
    amount_off_atom: AmountOffAtom.optional(),
    currency: Currency.optional().meta({ description: "Required with `amount_off_atom`, not allowed with `percent_off`." }),
    currency_options: z
      .record(z.string(), z.strictObject({ amount_off_atom: AmountOffAtom.meta({ description: "Taken off an invoice in this currency, in its atoms." }) }))
      .superRefine((options, issues) => {
        if (Object.keys(options).length > 40) issues.addIssue({ code: "custom", message: "At most 40 currency options." });
        for (const code of Object.keys(options)) {
          const parsed = Currency.safeParse(code);
          if (!parsed.success) issues.addIssue({ code: "custom", path: [code], message: parsed.error.issues[0]?.message ?? "Not a currency code." });
        }
      })
      .transform((options) => Object.fromEntries(Object.entries(options).map(([code, option]) => [code.toLowerCase(), option])))
      .optional()
      .meta({
        description:
          "Only with `amount_off_atom`: the amount taken off invoices in other currencies (Stripe's `currency_options`), currency code → `{amount_off_atom}`. An invoice in a currency neither `currency` nor an option names is not discounted.",
        example: { eur: { amount_off_atom: 450 } },
      }),
    duration: Duration,
    duration_in_months: z
      .int()
      .min(1)
      .max(1200)
      .optional()
      .meta({ description: "Required when `duration` is `repeating`, not allowed otherwise." }),
    max_redemptions: z.int().min(1).max(MAX_INT4).optional().meta({ description: "How many times it can be applied in all." }),
    redeem_by: DateTime.optional().meta({ description: "A future instant after which it can no longer be applied." }),
    metadata: Metadata.optional(),
  })
  .superRefine((input, ctx) => {
    const percent = input.percent_off !== undefined;
    const amount = input.amount_off_atom !== undefined;
    if (!percent && !amount) missing(ctx, "percent_off", "Give exactly one of percent_off or amount_off_atom.");
    if (percent && amount) conflicting(ctx, "amount_off_atom", "Give exactly one of percent_off or amount_off_atom.");
    if (amount && !percent && input.currency === undefined) missing(ctx, "currency", "Required with amount_off_atom.");
    if (percent && input.currency !== undefined) conflicting(ctx, "currency", "Only allowed with amount_off_atom.");
    if (!amount && input.currency_options !== undefined) conflicting(ctx, "currency_options", "Only allowed with amount_off_atom.");
    if (input.currency !== undefined && input.currency_options?.[input.currency] !== undefined) {
      ctx.addIssue({ code: "custom", path: ["currency_options", input.currency], message: `'${input.currency}' is the coupon's own currency: its amount is amount_off_atom.` });
    }
    if (input.duration === "repeating" && input.duration_in_months === undefined) {
      missing(ctx, "duration_in_months", "Required when duration is repeating.");
    }
    if (input.duration !== "repeating" && input.duration_in_months !== undefined) {
      conflicting(ctx, "duration_in_months", "Only allowed when duration is repeating.");
    }
  })
  // A whole example: the fields depend on each other (the reference's curl examples use it).
  .meta({ id: "CouponCreateInput", example: { name: "Spring sale", percent_off: 25, duration: "once" } });

const immutable = (field: string) =>
  z
    .never({ error: `${field} cannot change after creation; create a new coupon instead.` })
    .optional()
    .meta({ description: "Immutable: any value is a 422." });

export const CouponUpdateInput = z
  .strictObject({
    name: Name.optional(),
    metadata: MetadataPatch.optional(),
    // Named so the 422 says why rather than "Unknown field".
    percent_off: immutable("percent_off"),
    amount_off_atom: immutable("amount_off_atom"),
    currency: immutable("currency"),
    currency_options: immutable("currency_options"),
    duration: immutable("duration"),
    duration_in_months: immutable("duration_in_months"),
    max_redemptions: immutable("max_redemptions"),
    redeem_by: immutable("redeem_by"),
  })
  .meta({ id: "CouponUpdateInput" });

export const Coupon = z
  .object({
    id: z.string().meta({ example: "cpn_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("coupon"),
    name: z.string().nullable(),
    percent_off: z.number().nullable().meta({ description: "Set for percentage coupons, else null." }),
    amount_off_atom: z.int().nullable().meta({ description: "Set for fixed-amount coupons, else null." }),
    currency: z.string().nullable(),
    currency_options: z
      .record(z.string(), z.object({ amount_off_atom: z.int() }))
      .meta({ description: "An amount-off coupon's amounts in other currencies than `currency` (code → atoms); {} otherwise." }),
    duration: Duration,
    duration_in_months: z.int().nullable(),
    max_redemptions: z.int().nullable(),
    times_redeemed: z.int(),
    redeem_by: DateTime.nullable(),
    valid: z.boolean().meta({ description: "Not deleted, not past `redeem_by`, not at `max_redemptions`." }),
    metadata: z.record(z.string(), z.string()),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "Coupon" });

export const DeletedCoupon = z
  .object({ id: z.string(), object: z.literal("coupon"), deleted: z.literal(true) })
  .meta({ id: "DeletedCoupon" });

export const CouponList = listEnvelopeSchema(Coupon, "CouponList");
export const CouponListQuery = PaginationQuery;

export type CouponObject = z.input<typeof Coupon>;
