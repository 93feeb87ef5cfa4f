import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { Currency, DateTime, Metadata } from "@/lib/schemas";
import { CREDIT_GRANT_CATEGORIES, CREDIT_GRANT_STATUSES } from "./statuses";

/* A customer's credit grant (docs/billing.md, "Credit grants"), in the shape of Stripe's billing credit grants. */

/** Stripe's range and default: lower is applied first. */
export const PRIORITY_MIN = 0;
export const PRIORITY_MAX = 100;
export const PRIORITY_DEFAULT = 50;
/** A grant names at most this many meters. */
export const METERS_MAX = 20;

const AppliesTo = z
  .union([
    z.literal("all"),
    z.strictObject({
      meters: z
        .array(z.string().min(1).max(255))
        .min(1, "Name at least one meter.")
        .max(METERS_MAX, `At most ${METERS_MAX} meters.`)
        .refine((meters) => new Set(meters).size === meters.length, "Each meter once.")
        .meta({ description: "The meters (`mtr_…`) whose metered lines the grant pays." }),
    }),
  ])
  .meta({
    id: "CreditGrantAppliesTo",
    description: "`all`: every line of the customer's invoices in the grant's currency; `{meters: [...]}`: only the metered lines of those meters (prices with `recurring.meter`).",
    example: { meters: ["mtr_test_01kaxz4c7e5r3x3m9k2w8q4tgd5"] },
  });

export const CreditGrant = z
  .object({
    object: z.literal("credit_grant"),
    id: z.string().meta({ example: "cg_test_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    customer: z.string().meta({ description: "The customer (`cus_…`) the credit was granted to." }),
    name: z.string().nullable(),
    category: z.enum(CREDIT_GRANT_CATEGORIES).meta({ description: "`paid` (the customer bought it) or `promotional` (given); both apply the same way." }),
    currency: z.string().meta({ example: "usd" }),
    amount_atom: z.number().int().meta({ description: "The amount granted, in atoms of `currency`.", example: 5000 }),
    remaining_atom: z.number().int().meta({ description: "What is left to apply: the amount − Σ of its applications. Still shown once voided or expired (it no longer applies)." }),
    applied_atom: z.number().int().meta({ description: "Σ of what it paid on invoices (its `applications`)." }),
    applies_to: AppliesTo,
    priority: z.number().int().meta({ description: `Applied in ascending order (${PRIORITY_MIN}–${PRIORITY_MAX}), then the earliest \`expires_at\` first (none last), then the oldest.` }),
    effective_at: DateTime.meta({ description: "It pays invoices finalized at or after this instant (the account's clock)." }),
    expires_at: DateTime.nullable().meta({ description: "It pays invoices finalized before this instant; then it expires (`credit_grant.expired`). Null: never." }),
    status: z.enum(CREDIT_GRANT_STATUSES).meta({
      description: "`active` (may pay), `depleted` (nothing left), `expired` (reached `expires_at`), `voided` (ended by the merchant). Only an active grant pays.",
    }),
    voided_at: DateTime.nullable(),
    expired_at: DateTime.nullable(),
    metadata: z.record(z.string(), z.string()),
    created: DateTime,
    updated: DateTime,
    livemode: z.boolean(),
  })
  .meta({ id: "CreditGrant", description: "Credit granted to a customer, paid out on its invoices at finalization before the balance." });

export type CreditGrantObject = z.input<typeof CreditGrant>;

export const CreditGrantList = listEnvelopeSchema(CreditGrant, "CreditGrantList");

export const CreditGrantListQuery = PaginationQuery.extend({
  customer: z.string().min(1).optional().meta({ description: "Only this customer's grants." }),
});

export const CreditGrantCreateInput = z
  .strictObject({
    customer: z.string().min(1).max(255).meta({ description: "The customer (`cus_…`)." }),
    amount_atom: z
      .int("Must be an integer number of atoms.")
      .positive("Must be greater than 0.")
      .max(Number.MAX_SAFE_INTEGER, "Must be at most 2^53 - 1 atoms.")
      .meta({ description: "The amount granted, in atoms of `currency`.", example: 5000 }),
    currency: Currency,
    category: z.enum(CREDIT_GRANT_CATEGORIES),
    applies_to: AppliesTo,
    priority: z.int().min(PRIORITY_MIN).max(PRIORITY_MAX).optional().meta({ description: `Default ${PRIORITY_DEFAULT}.` }),
    effective_at: DateTime.optional().meta({ description: "Default: now (the account's clock)." }),
    expires_at: DateTime.optional().meta({ description: "After `effective_at`. Default: never." }),
    name: z.string().min(1).max(100).optional(),
    metadata: Metadata.optional(),
  })
  .superRefine((input, ctx) => {
    if (input.expires_at !== undefined && input.effective_at !== undefined && Date.parse(input.expires_at) <= Date.parse(input.effective_at)) {
      ctx.addIssue({ code: "custom", path: ["expires_at"], message: "Must be after effective_at." });
    }
  })
  .meta({
    id: "CreditGrantCreateInput",
    example: { customer: "cus_test_01kaxz4c7e5r3x3m9k2w8q4tgd5", amount_atom: 5000, currency: "usd", category: "paid", applies_to: "all" },
  });

/** One entry of a grant's ledger: what it paid on one invoice line. */
export const CreditGrantApplication = z
  .object({
    object: z.literal("credit_grant_application"),
    id: z.string().meta({ example: "cgap_test_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    credit_grant: z.string(),
    customer: z.string(),
    invoice: z.string(),
    line: z.string().meta({ description: "The invoice line (`il_…`) it paid." }),
    currency: z.string(),
    amount_atom: z.number().int(),
    created: DateTime,
    reinstated_at: DateTime.nullable().meta({ description: "When voiding the invoice gave this credit back to the grant; null while it stands (or when the grant had expired or been voided by then)." }),
  })
  .meta({ id: "CreditGrantApplication", description: "What a credit grant paid on one invoice line at finalization (the grant's ledger)." });

export const CreditGrantApplicationList = listEnvelopeSchema(CreditGrantApplication, "CreditGrantApplicationList");
