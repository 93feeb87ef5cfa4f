import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { checkVAT, countries } from "jsvat";
import { LocaleSchema, PostalAddress, PostalAddressInput } from "@/lib/account-settings/schema";
import { Discount } from "@/lib/discounts/schema";
import { Currency, DateTime, expandQuery, Metadata, MetadataPatch } from "@/lib/schemas";

/** The EU member states (ISO 3166-1; Greece is GR, its VAT numbers start with EL). */
export const EU_COUNTRIES: readonly string[] = ["AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV", "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE"];

/** The EU member states' VAT formats (jsvat also knows non-EU ones, which `eu_vat` refuses). */
const EU_VAT_COUNTRIES = countries.filter((country) => EU_COUNTRIES.includes(country.codes[0] ?? ""));

/** An EU VAT number's country (ISO 3166-1, `GR` for `EL…`), or null when its format is invalid. */
export function euVatCountry(value: string): string | null {
  const result = checkVAT(value, EU_VAT_COUNTRIES);
  return result.isValid ? (result.country?.isoCode.short ?? null) : null;
}

export const TAX_ID_TYPES = ["eu_vat"] as const;

export const TaxIdInput = z
  .strictObject({
    type: z.enum(TAX_ID_TYPES, { error: `Must be one of ${TAX_ID_TYPES.join(", ")}.` }),
    value: z
      .string()
      .max(40)
      .transform((value) => value.replace(/[\s.-]/g, "").toUpperCase())
      .refine((value) => euVatCountry(value) !== null, "Not a valid EU VAT number (country prefix and checksum)."),
  })
  .meta({ id: "TaxIdInput", example: { type: "eu_vat", value: "DE136695976" } });

export const TaxId = z
  .object({
    type: z.enum(TAX_ID_TYPES),
    value: z.string().meta({ description: "Normalized: uppercase, without spaces, dots or dashes." }),
    country: z.string().meta({ description: "The issuing country (ISO 3166-1 alpha-2)." }),
  })
  .meta({ id: "TaxId" });

const TaxIds = z.array(TaxIdInput).max(5, "At most 5 tax ids.");

export const CustomFields = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((value) => Object.keys(value).length <= 50, "At most 50 custom fields.")
  .meta({ id: "CustomFields", description: "Custom field values by field key." });

const Email = z.email().max(254).meta({ example: "jenny@example.com" });
const Name = z.string().min(1).max(256).nullable();

/** The most extra recipients a customer's invoices go to (besides `email`), as Stripe's `invoice_settings`' CC list. */
export const MAX_INVOICE_EMAILS = 5;

/**
 * Extra recipients of the customer's invoices: up to 5 addresses, each once; an address with a
 * line break (CR or LF: a header injection) is refused, saying so.
 */
const InvoiceEmails = z
  .array(
    z
      .email({ error: (issue) => (/[\r\n]/.test(String(issue.input)) ? "Must not contain a line break (CR or LF)." : "Not a valid email address.") })
      .max(254),
  )
  .max(MAX_INVOICE_EMAILS, `At most ${MAX_INVOICE_EMAILS} invoice emails.`)
  .refine((emails) => new Set(emails.map((email) => email.toLowerCase())).size === emails.length, "Each address at most once.")
  .meta({
    description: `Extra recipients of the customer's invoice emails, besides \`email\` (at most ${MAX_INVOICE_EMAILS}).`,
    example: ["accounts@example.com"],
  });

export const CustomerCreateInput = z
  .strictObject({
    email: Email,
    name: Name.optional(),
    address: PostalAddressInput.nullable().optional(),
    preferred_locale: LocaleSchema.nullable().optional().meta({ description: "Invoice language; null: the account's `default_locale`." }),
    tax_ids: TaxIds.optional(),
    invoice_emails: InvoiceEmails.optional(),
    default_tax_rate: z.string().min(1).nullable().optional().meta({ description: "The tax rate (`txr_…`) of this customer's invoice lines that name none." }),
    currency: Currency.optional().meta({
      description:
        "The currency the customer is billed in (subscriptions, checkout, the portal): prices bill them from their matching currency option. Without it, their first invoice or subscription fixes it. It changes only while they have no draft or open invoice, no subscription that is not cancelled and a zero balance in every currency (409 otherwise).",
    }),
    custom_fields: CustomFields.optional(),
    metadata: Metadata.optional(),
  })
  .meta({ id: "CustomerCreateInput" });

export const CustomerUpdateInput = z
  .strictObject({
    email: Email.optional(),
    name: Name.optional(),
    address: PostalAddressInput.nullable().optional(),
    preferred_locale: LocaleSchema.nullable().optional(),
    tax_ids: TaxIds.optional().meta({ description: "Replaces the customer's tax ids." }),
    invoice_emails: InvoiceEmails.optional().meta({ description: "Replaces the extra recipients of the customer's invoice emails ([] removes them)." }),
    default_tax_rate: z.string().min(1).nullable().optional(),
    currency: Currency.optional().meta({
      description:
        "The currency the customer is billed in (subscriptions, checkout, the portal): prices bill them from their matching currency option. Without it, their first invoice or subscription fixes it. It changes only while they have no draft or open invoice, no subscription that is not cancelled and a zero balance in every currency (409 otherwise).",
    }),
    custom_fields: MetadataPatch.optional().meta({ description: "Custom fields to set; null removes one." }),
    default_payment_method: z.string().min(1).max(255).nullable().optional().meta({
      description:
        "A payment method (`pm_…`) attached to this customer, charged when a subscription or invoice has no method of its own (Stripe's `invoice_settings.default_payment_method`); null clears it. Any other value is a 422 on this field.",
      example: "pm_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5",
    }),
    metadata: MetadataPatch.optional(),
  })
  .meta({ id: "CustomerUpdateInput" });

export const Customer = z
  .object({
    id: z.string().meta({ example: "cus_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("customer"),
    email: z.string(),
    name: z.string().nullable(),
    address: PostalAddress.nullable(),
    preferred_locale: LocaleSchema.nullable(),
    tax_ids: z.array(TaxId),
    invoice_emails: z.array(z.string()).meta({ description: "Extra recipients of the customer's invoice emails, besides `email`." }),
    default_tax_rate: z.string().nullable(),
    default_payment_method: z.string().nullable().meta({
      description:
        "The payment method (`pm_…`) charged when a subscription or invoice has none of its own (renewals, dunning retries, `POST /invoices/{id}/pay` without a method); null when none. Cleared when it is detached.",
    }),
    metadata: z.record(z.string(), z.string()),
    currency: z.string().nullable().meta({
      description: "The currency the customer is billed in (lowercase), or null until set or fixed by their first invoice or subscription.",
      example: "eur",
    }),
    balances: z.record(z.string(), z.number().int()).meta({
      description:
        "The customer's balance per currency (lowercase code → atoms): positive is credit the customer has (applied to their next finalized invoice of that currency), negative is what they owe (added to it). Changed only through balance transactions (`listCustomerBalanceTransactions`).",
      example: { eur: 1500 },
    }),
    custom_fields: CustomFields.optional().meta({ description: "Present with expand=custom_fields." }),
    discount: Discount.nullable().optional().meta({
      description: "Present with expand=discount (retrieve only): the customer's discount, null when they have none.",
    }),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "Customer" });

export const DeletedCustomer = z
  .object({ id: z.string(), object: z.literal("customer"), deleted: z.literal(true) })
  .meta({ id: "DeletedCustomer" });

export const CustomerList = listEnvelopeSchema(Customer, "CustomerList");

export const CustomerExpandQuery = z.strictObject({ expand: expandQuery("custom_fields") });
/** Retrieving one customer can also expand their discount: a reader learns "none" without a 404. */
export const CustomerGetQuery = z.strictObject({ expand: expandQuery("custom_fields", "discount") });
export const CustomerListQuery = PaginationQuery.extend({
  expand: expandQuery("custom_fields"),
  q: z
    .string()
    .trim()
    .min(1, { error: "q must not be empty." })
    .max(200, { error: "q has at most 200 characters." })
    .optional()
    .meta({
      description:
        "Only customers whose email or name contains this text (case-insensitive), e.g. `lovelace` or `@example`; prefix matches come first. A term of 1 or 2 characters matches the start of the email or name only.",
    }),
});

export type CustomerObject = z.input<typeof Customer>;
