import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { DateTime, Metadata, MetadataPatch } from "@/lib/schemas";

/** A percentage as stored: × 10 000, an integer (19.6 % = 196 000). */
export function percentToE4(percent: number): number {
  return Math.round(percent * 10_000);
}

export function e4ToPercent(e4: number): number {
  return e4 / 10_000;
}

const Percentage = z
  .number()
  .min(0, "Must be 0 or more.")
  .max(100, "Must be at most 100.")
  .refine((value) => percentToE4(value) / 10_000 === value, "At most 4 decimals.")
  .meta({ description: "The rate in percent, 0–100, at most 4 decimals; fixed once created.", example: 19 });

const Country = z
  .string()
  .regex(/^[A-Za-z]{2}$/, "Must be a two-letter ISO 3166-1 country code.")
  .transform((value) => value.toUpperCase());

export const TaxRateCreateInput = z
  .strictObject({
    display_name: z.string().trim().min(1).max(50).meta({ example: "VAT" }),
    description: z.string().max(500).nullable().optional(),
    percentage: Percentage,
    inclusive: z.boolean().meta({ description: "true: prices contain the tax; false: the tax is added to them. Fixed once created." }),
    country: Country.nullable().optional(),
    jurisdiction: z.string().max(50).nullable().optional(),
    metadata: Metadata.optional(),
  })
  .meta({ id: "TaxRateCreateInput" });

export const TaxRateUpdateInput = z
  .strictObject({
    display_name: z.string().trim().min(1).max(50).optional(),
    description: z.string().max(500).nullable().optional(),
    active: z.boolean().optional().meta({ description: "false archives the rate: no new use; where it is used, it stays." }),
    country: Country.nullable().optional(),
    jurisdiction: z.string().max(50).nullable().optional(),
    metadata: MetadataPatch.optional(),
  })
  .meta({ id: "TaxRateUpdateInput" });

export const TaxRate = z
  .object({
    id: z.string().meta({ example: "txr_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("tax_rate"),
    display_name: z.string(),
    description: z.string().nullable(),
    percentage: z.number(),
    inclusive: z.boolean(),
    country: z.string().nullable(),
    jurisdiction: z.string().nullable(),
    active: z.boolean(),
    metadata: z.record(z.string(), z.string()),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "TaxRate" });

export const TaxRateList = listEnvelopeSchema(TaxRate, "TaxRateList");

export const TaxRateListQuery = PaginationQuery.extend({
  active: z
    .enum(["true", "false"], { error: "active must be true or false." })
    .transform((value) => value === "true")
    .optional()
    .meta({ description: "Only active (true) or archived (false) rates." }),
});

/** Tax rates named by an invoice line or a default: ids of the account's rates. */
export const TaxRateIds = z
  .array(z.string().min(1))
  .max(5, "At most 5 tax rates.")
  .refine((ids) => new Set(ids).size === ids.length, "A tax rate appears once.");

/** One rate's tax on a line, or summed over the invoice (`total_taxes`). */
export const TaxAmountSchema = z
  .object({
    tax_rate: z.string(),
    amount_atom: z.number().int().meta({ description: "The tax, rounded half to even per line." }),
    inclusive: z.boolean(),
    taxable_amount_atom: z.number().int().meta({ description: "What the rate applied to (after the discount's share)." }),
    taxability_reason: z.enum(["standard_rated", "reverse_charge"]).meta({ description: "`reverse_charge`: 0, the buyer accounts for the VAT." }),
  })
  .meta({ id: "TaxAmount" });

export type TaxAmount = z.output<typeof TaxAmountSchema>;
export type TaxRateObject = z.input<typeof TaxRate>;
