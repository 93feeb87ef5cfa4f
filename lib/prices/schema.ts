import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { booleanParam } from "@/lib/products/schema";
import { Currency, DateTime, Metadata, MetadataPatch } from "@/lib/schemas";

export const PRICE_TYPES = ["one_time", "recurring"] as const;
export const RECURRING_INTERVALS = ["day", "week", "month", "year"] as const;


const UnitAmountAtom = z
  .int({ error: "Must be an integer number of atomic units (cents for usd), up to 2^53 - 1." })
  .min(0, "Must be 0 or more.")
  .max(Number.MAX_SAFE_INTEGER)
  .meta({ description: "Integer amount in atomic units (cents for usd). Never a decimal.", example: 1500 });

const Nickname = z.string().min(1).max(256).nullable();

const Recurring = z
  .strictObject({
    interval: z.enum(RECURRING_INTERVALS),
    interval_count: z
      .int()
      .min(1, "Must be from 1 to 365.")
      .max(365, "Must be from 1 to 365.")
      .optional()
      .meta({ description: "Intervals between billings, 1 to 365. Default 1." }),
  })
  .meta({ id: "PriceRecurringInput" });

export const PriceCreateInput = z
  .strictObject({
    product: z.string().min(1).meta({ description: "The product (`prod_…`) of this account the price belongs to." }),
    currency: Currency,
    unit_amount_atom: UnitAmountAtom,
    type: z.enum(PRICE_TYPES),
    recurring: Recurring.nullable()
      .optional()
      .meta({ description: "Required when `type` is `recurring`, absent or null otherwise." }),
    nickname: Nickname.optional(),
    active: z.boolean().optional().meta({ description: "Default true." }),
    metadata: Metadata.optional(),
  })
  .superRefine((input, issues) => {
    if (input.type === "recurring" && !input.recurring) {
      issues.addIssue({ code: "custom", path: ["recurring"], message: "Required when type is recurring." });
    }
    if (input.type === "one_time" && input.recurring) {
      issues.addIssue({ code: "custom", path: ["recurring"], message: "Only recurring prices have a recurring interval." });
    }
  })
  .meta({ id: "PriceCreateInput" });

// Amount, currency, type and schedule are what a customer agreed to pay: never edited in place.
const immutable = (field: string) =>
  z
    .never({ error: `${field} cannot be changed; create a new price instead.` })
    .optional()
    .meta({ description: "Immutable: sending it is a 422; create a new price instead." });

export const PriceUpdateInput = z
  .strictObject({
    nickname: Nickname.optional(),
    active: z.boolean().optional().meta({ description: "Set false to archive the price, true to restore it." }),
    metadata: MetadataPatch.optional(),
    product: immutable("product"),
    currency: immutable("currency"),
    unit_amount_atom: immutable("unit_amount_atom"),
    type: immutable("type"),
    recurring: immutable("recurring"),
  })
  .meta({ id: "PriceUpdateInput" });

export const Price = z
  .object({
    id: z.string().meta({ example: "price_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("price"),
    product: z.string(),
    currency: z.string(),
    unit_amount_atom: z.number().int(),
    type: z.enum(PRICE_TYPES),
    recurring: z
      .object({ interval: z.enum(RECURRING_INTERVALS), interval_count: z.number().int() })
      .nullable()
      .meta({ description: "Null for one-time prices." }),
    nickname: z.string().nullable(),
    active: z.boolean(),
    metadata: z.record(z.string(), z.string()),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "Price" });

export const DeletedPrice = z
  .object({ id: z.string(), object: z.literal("price"), deleted: z.literal(true) })
  .meta({ id: "DeletedPrice" });

export const PriceList = listEnvelopeSchema(Price, "PriceList");

export const PriceListQuery = PaginationQuery.extend({
  product: z.string().min(1).optional().meta({ description: "Only prices of this product." }),
  active: booleanParam("active").meta({ description: "Only active (true) or only archived (false) prices." }),
  type: z.enum(PRICE_TYPES, { error: "type must be one_time or recurring." }).optional(),
});

export type PriceObject = z.input<typeof Price>;
