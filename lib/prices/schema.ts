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

export const USAGE_TYPES = ["licensed", "metered"] as const;
export const BILLING_SCHEMES = ["per_unit", "tiered"] as const;
export const TIERS_MODES = ["graduated", "volume"] as const;

const Recurring = z
  .strictObject({
    interval: z.enum(RECURRING_INTERVALS),
    interval_count: z
      .int()
      .min(1, "Must be from 1 to 365.")
      .max(365, "Must be from 1 to 365.")
      .optional()
      .meta({ description: "Intervals between billings, 1 to 365. Default 1." }),
    usage_type: z.enum(USAGE_TYPES).optional().meta({
      description: "`licensed` (default): billed in advance by quantity; `metered`: billed in arrears from the usage of `meter`.",
    }),
    meter: z.string().min(1).optional().meta({ description: "Required with `usage_type: metered`: an active meter (`mtr_…`)." }),
  })
  .meta({ id: "PriceRecurringInput" });

const TierAtoms = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

export const PriceTier = z
  .strictObject({
    up_to: z.int().min(1).max(Number.MAX_SAFE_INTEGER).nullable().meta({ description: "Upper bound of units (inclusive); null on the last tier." }),
    unit_amount_atom: TierAtoms.meta({ description: "Per unit, in atoms." }),
    flat_amount_atom: TierAtoms.optional().meta({ description: "A flat fee for the tier, in atoms." }),
  })
  .meta({ id: "PriceTier" });

export const TAX_BEHAVIORS = ["inclusive", "exclusive", "unspecified"] as const;

/** One currency option as given: the price in that currency (Stripe's `currency_options.<code>`). */
export const PriceCurrencyOptionInput = z
  .strictObject({
    unit_amount_atom: UnitAmountAtom.optional().meta({
      description: "In atoms of the option's currency (JPY: yen, BHD: fils). Required exactly when the price is `per_unit`.",
    }),
    tiers: z.array(PriceTier).min(1).max(20).optional().meta({
      description: "Required exactly when the price is `tiered`: as many tiers as the price's, with the same `up_to`s, amounts in this currency.",
    }),
    tax_behavior: z.enum(TAX_BEHAVIORS).optional().meta({
      description: "Default `unspecified`. Recorded as Stripe does; whether a tax is contained in an amount is still the tax rate's `inclusive`.",
    }),
  })
  .meta({ id: "PriceCurrencyOptionInput", example: { unit_amount_atom: 1400 } });

/** How many currencies a price may bill in besides its own (Stripe's limit). */
export const MAX_CURRENCY_OPTIONS = 40;

/** Lowercase ISO 4217 code (any case on input) → option; at most 40 currencies besides the price's own. */
export const PriceCurrencyOptionsInput = z
  .record(z.string(), PriceCurrencyOptionInput)
  .superRefine((options, issues) => {
    const codes = Object.keys(options);
    if (codes.length > MAX_CURRENCY_OPTIONS) issues.addIssue({ code: "custom", message: `At most ${MAX_CURRENCY_OPTIONS} currency options.` });
    const seen = new Set<string>();
    for (const code of codes) {
      const parsed = Currency.safeParse(code);
      if (!parsed.success) {
        issues.addIssue({ code: "custom", path: [code], message: parsed.error.issues[0]?.message ?? "Not a currency code." });
        continue;
      }
      if (seen.has(parsed.data)) issues.addIssue({ code: "custom", path: [code], message: `'${parsed.data}' is given twice.` });
      seen.add(parsed.data);
    }
  })
  .transform((options) => Object.fromEntries(Object.entries(options).map(([code, option]) => [code.toLowerCase(), option])))
  .meta({
    id: "PriceCurrencyOptionsInput",
    description: "The price in other currencies (Stripe's `currency_options`): currency code → its amount. Customers billed in one of them pay it; no exchange rate is ever applied.",
    example: { eur: { unit_amount_atom: 1400 }, jpy: { unit_amount_atom: 2200 } },
  });

/** A price's terms that its currency options must agree with. */
type OptionTerms = { currency: string; tiered: boolean; tiers: readonly { up_to: number | null }[] | null };
type OptionInput = z.output<typeof PriceCurrencyOptionInput>;
/** A problem of one currency option: its path under `currency_options`; `missing` for a required amount not given. */
export type OptionProblem = { path: string[]; message: string; missing?: boolean };

/**
 * What is wrong with currency options given for a price (at its creation, or added later by
 * `updatePrice`): an option in the price's own currency or in one it already bills in
 * (`existing`), an amount of the wrong scheme, or tiers with other bounds than the price's. One
 * rule for both, so that an added currency bills exactly as one given at creation would.
 */
export function currencyOptionProblems(price: OptionTerms, options: Record<string, OptionInput>, existing: readonly string[] = []): OptionProblem[] {
  const problems: OptionProblem[] = [];
  const bounds = (tiers: readonly { up_to: number | null }[]) => tiers.map((tier) => tier.up_to).join(",");
  for (const [code, option] of Object.entries(options)) {
    const at = (field?: string) => (field === undefined ? [code] : [code, field]);
    if (code.toLowerCase() === price.currency.toLowerCase()) {
      problems.push({ path: at(), message: `'${code}' is the price's own currency: give its amount at the top level.` });
    } else if (existing.includes(code.toLowerCase())) {
      problems.push({ path: at(), message: `The price already bills in '${code}': a currency's amounts are fixed once set; create a new price to change them.` });
    }
    if (!price.tiered && option.unit_amount_atom === undefined) problems.push({ path: at("unit_amount_atom"), message: "Required: the price is per_unit.", missing: true });
    if (!price.tiered && option.tiers !== undefined) problems.push({ path: at("tiers"), message: "Only with billing_scheme tiered." });
    if (price.tiered && option.unit_amount_atom !== undefined) problems.push({ path: at("unit_amount_atom"), message: "Not allowed with billing_scheme tiered (give tiers)." });
    if (price.tiered && option.tiers === undefined) problems.push({ path: at("tiers"), message: "Required: the price is tiered.", missing: true });
    // The same tiers in every currency: only the amounts differ, so a quantity lands in the same tier whatever the currency.
    if (price.tiered && option.tiers && price.tiers && bounds(option.tiers) !== bounds(price.tiers)) {
      problems.push({ path: at("tiers"), message: "Must have the price's tiers (the same up_to values, in order); only the amounts differ." });
    }
  }
  // The options given are at most 40 already (PriceCurrencyOptionsInput); added ones count with those the price has.
  if (existing.length > 0 && existing.length + Object.keys(options).length > MAX_CURRENCY_OPTIONS) {
    problems.push({ path: [], message: `At most ${MAX_CURRENCY_OPTIONS} currency options; the price has ${existing.length}.` });
  }
  return problems;
}

export const PriceCreateInput = z
  .strictObject({
    product: z.string().min(1).meta({ description: "The product (`prod_…`) of this account the price belongs to." }),
    currency: Currency,
    unit_amount_atom: UnitAmountAtom.optional().meta({ description: "Required with `billing_scheme: per_unit` (the default), not allowed with `tiered`." }),
    type: z.enum(PRICE_TYPES),
    recurring: Recurring.nullable()
      .optional()
      .meta({ description: "Required when `type` is `recurring`, absent or null otherwise." }),
    billing_scheme: z.enum(BILLING_SCHEMES).optional().meta({ description: "`per_unit` (default) or `tiered` (then `tiers` and `tiers_mode`)." }),
    tiers_mode: z.enum(TIERS_MODES).optional().meta({
      description: "`graduated`: each tier prices the units within it; `volume`: the tier of the total prices every unit.",
    }),
    tiers: z.array(PriceTier).min(1).max(20).optional().meta({ description: "Ascending `up_to`, the last one null." }),
    currency_options: PriceCurrencyOptionsInput.optional(),
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
    const missing = (path: string | string[], message: string) =>
      issues.addIssue({ code: "invalid_type", expected: "number", input: undefined, path: Array.isArray(path) ? path : [path], message });
    const tiered = input.billing_scheme === "tiered";
    if (!tiered && input.unit_amount_atom === undefined) missing("unit_amount_atom", "Required with billing_scheme per_unit.");
    if (tiered && input.unit_amount_atom !== undefined) {
      issues.addIssue({ code: "custom", path: ["unit_amount_atom"], message: "Not allowed with billing_scheme tiered (give tiers)." });
    }
    if (tiered && input.tiers === undefined) missing("tiers", "Required with billing_scheme tiered.");
    if (tiered && input.tiers_mode === undefined) missing("tiers_mode", "Required with billing_scheme tiered.");
    if (!tiered && (input.tiers !== undefined || input.tiers_mode !== undefined)) {
      issues.addIssue({ code: "custom", path: ["tiers"], message: "Only with billing_scheme tiered." });
    }
    const terms = { currency: input.currency, tiered, tiers: input.tiers ?? null };
    for (const problem of currencyOptionProblems(terms, input.currency_options ?? {})) {
      const path = ["currency_options", ...problem.path];
      if (problem.missing) missing(path, problem.message);
      else issues.addIssue({ code: "custom", path, message: problem.message });
    }
    const metered = input.recurring?.usage_type === "metered";
    if (metered && input.recurring?.meter === undefined) {
      issues.addIssue({ code: "invalid_type", expected: "string", input: undefined, path: ["recurring", "meter"], message: "Required with usage_type metered." });
    }
    if (!metered && input.recurring?.meter !== undefined) {
      issues.addIssue({ code: "custom", path: ["recurring", "meter"], message: "Only with usage_type metered." });
    }
  })
  // A whole example: unit_amount_atom is required only with the default billing scheme.
  .meta({
    id: "PriceCreateInput",
    example: { product: "prod_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5", currency: "usd", unit_amount_atom: 1500, type: "recurring", recurring: { interval: "month" } },
  });

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
    billing_scheme: immutable("billing_scheme"),
    tiers_mode: immutable("tiers_mode"),
    tiers: immutable("tiers"),
    currency_options: PriceCurrencyOptionsInput.optional().meta({
      description:
        "Adds currencies the price bills in (Stripe's `currency_options`), each as at creation. A currency the price already bills in is a 422: its amounts are fixed once set, as `unit_amount_atom` is (create a new price to change them). Nothing a customer was billed changes.",
      example: { gbp: { unit_amount_atom: 1300 } },
    }),
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
      .object({
        interval: z.enum(RECURRING_INTERVALS),
        interval_count: z.number().int(),
        usage_type: z.enum(USAGE_TYPES),
        meter: z.string().nullable().meta({ description: "The meter of a metered price, else null." }),
      })
      .nullable()
      .meta({ description: "Null for one-time prices." }),
    billing_scheme: z.enum(BILLING_SCHEMES),
    tiers_mode: z.enum(TIERS_MODES).nullable(),
    tiers: z
      .array(z.object({ up_to: z.int().nullable(), unit_amount_atom: z.int(), flat_amount_atom: z.int() }))
      .nullable()
      .meta({ description: "The tiers of a tiered price (then `unit_amount_atom` is 0), else null." }),
    currency_options: z
      .record(
        z.string(),
        z
          .object({
            unit_amount_atom: z.int().meta({ description: "Per unit in this currency's atoms; 0 for a tiered price." }),
            tiers: z
              .array(z.object({ up_to: z.int().nullable(), unit_amount_atom: z.int(), flat_amount_atom: z.int() }))
              .nullable(),
            tax_behavior: z.enum(TAX_BEHAVIORS),
          })
          .meta({ id: "PriceCurrencyOption" }),
      )
      .meta({
        description:
          "The price per currency it can bill in, its own `currency` included (as Stripe shows it): lowercase code → amount. A customer billed in a currency missing here cannot be billed this price (422 naming both).",
        example: { usd: { unit_amount_atom: 1500, tiers: null, tax_behavior: "unspecified" }, eur: { unit_amount_atom: 1400, tiers: null, tax_behavior: "unspecified" } },
      }),
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
