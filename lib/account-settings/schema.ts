import { z } from "zod";
import { NO_LINE_BREAKS, SWITCHABLE_EMAIL_TYPES } from "@/lib/email-outbox/types";

/** The invoice languages: labels, dates and money of invoices are rendered in one of these. */
export const LOCALES = ["en", "fr", "de"] as const;
export type Locale = (typeof LOCALES)[number];
export const LocaleSchema = z.enum(LOCALES, { error: `Must be one of ${LOCALES.join(", ")}.` });

/** ISO 3166-1 alpha-2, accepted in any case and kept uppercase. */
const Country = z
  .string()
  .regex(/^[A-Za-z]{2}$/, "Must be a two-letter ISO 3166-1 country code.")
  .transform((value) => value.toUpperCase())
  .meta({ example: "FR" });

const AddressText = z.string().trim().min(1).max(200);

/** A postal address (seller and buyer): what an invoice prints. */
export const PostalAddressInput = z
  .strictObject({
    line1: AddressText,
    line2: AddressText.nullable().optional(),
    postal_code: z.string().trim().min(1).max(20),
    city: AddressText,
    country: Country,
  })
  .meta({ id: "PostalAddressInput" });

export const PostalAddress = z
  .object({
    line1: z.string(),
    line2: z.string().nullable(),
    postal_code: z.string(),
    city: z.string(),
    country: z.string().meta({ description: "ISO 3166-1 alpha-2, uppercase." }),
  })
  .meta({ id: "PostalAddress" });

/** Which change requests without `effective` wait for the period end (lib/subscription-changes/effective.ts). */
export const PLAN_CHANGE_POLICIES = ["immediate", "upgrade_now_downgrade_at_period_end"] as const;

export const INVOICE_PREFIX = /^[A-Z0-9-]{3,12}$/;

/**
 * The account settings, one line per field: its input schema (null clears a nullable setting) and
 * its output schema. The stored column is the field's name in camelCase on `accounts`
 * (lib/account-settings/service.ts checks that at compile time), so adding a setting is its column
 * plus one line here.
 */
export const SETTINGS_FIELDS = {
  business_name: { input: z.string().trim().min(1).max(256).nullable(), output: z.string().nullable() },
  address: { input: PostalAddressInput.nullable(), output: PostalAddress.nullable() },
  tax_id: { input: z.string().trim().min(2).max(64).nullable(), output: z.string().nullable() },
  support_email: { input: z.email().max(254).nullable(), output: z.string().nullable() },
  brand_color: {
    input: z
      .string()
      .regex(/^#[0-9A-Fa-f]{6}$/, "Must be a colour as #RRGGBB.")
      .transform((value) => value.toLowerCase())
      .nullable()
      .meta({ description: "The accent colour of the emails sent to customers, `#RRGGBB` (docs/emails.md). Null: the service's own.", example: "#0a7c59" }),
    output: z.string().nullable(),
  },
  invoice_prefix: {
    input: z.string().regex(INVOICE_PREFIX, "Must be 3 to 12 of A-Z, 0-9 and '-'.").nullable().meta({
      description: "3–12 of `[A-Z0-9-]`. Null: derived from `business_name` (see `invoice_prefix` in the answer).",
      example: "ACME",
    }),
    output: z.string().meta({ description: "The prefix of invoice numbers: the one set, else derived from the business name." }),
  },
  invoice_footer: { input: z.string().max(2000).nullable(), output: z.string().nullable() },
  default_locale: { input: LocaleSchema, output: LocaleSchema },
  default_tax_rate: {
    input: z.string().min(1).nullable().meta({ description: "An active tax rate (`txr_…`) for invoice lines that name none, unless the customer has a default." }),
    output: z.string().nullable(),
  },
  usage_grace_seconds: {
    input: z.number().int().min(0).max(604_800).meta({
      description: "How long after a period ends its usage events are still accepted and counted; that period's invoice is finalized after it (docs/usage-billing.md). 0 to 7 days.",
      example: 3600,
    }),
    output: z.number().int(),
  },
  entitlement_past_due_grace_days: {
    input: z.number().int().min(0).max(90).meta({
      description: "How many days a past_due subscription keeps granting its features (docs/portal-and-entitlements.md).",
      example: 7,
    }),
    output: z.number().int(),
  },
  plan_change_policy: {
    input: z.enum(PLAN_CHANGE_POLICIES, { error: `Must be one of ${PLAN_CHANGE_POLICIES.join(", ")}.` }).meta({
      description:
        "When a change request without `effective` takes effect: `immediate` (default: now), or `upgrade_now_downgrade_at_period_end` (now when its proration previewed now is above 0, an upgrade, whatever its `proration_behavior`; else at the period end; docs/billing.md).",
      example: "upgrade_now_downgrade_at_period_end",
    }),
    output: z.enum(PLAN_CHANGE_POLICIES),
  },
  email_sender_name: {
    input: z.string().trim().min(1).max(100).regex(NO_LINE_BREAKS, "Must not contain line breaks.").nullable().meta({
      description: "The display name of the emails' From (docs/emails.md). Null: the business name, else the account name.",
    }),
    output: z.string().nullable(),
  },
  email_reply_to: {
    input: z.email().max(254).nullable().meta({ description: "The emails' Reply-To. Null: the support email." }),
    output: z.string().nullable(),
  },
  email_hourly_limit: {
    input: z.number().int().min(1).max(1_000_000).meta({
      description: "Emails sent per rolling hour; beyond it an email is marked `rate_limited` in the email log, not sent (default 1000).",
      example: 1000,
    }),
    output: z.number().int(),
  },
  email_types_disabled: {
    input: z.array(z.enum(SWITCHABLE_EMAIL_TYPES as [string, ...string[]])).max(SWITCHABLE_EMAIL_TYPES.length).meta({
      description: "The email types switched off (all are on by default): none of these is queued.",
      example: ["receipt"],
    }),
    output: z.array(z.string()),
  },
} as const;

type Fields = typeof SETTINGS_FIELDS;
export type SettingName = keyof Fields;

const inputShape = Object.fromEntries(
  Object.entries(SETTINGS_FIELDS).map(([name, field]) => [name, field.input.optional()]),
) as { [K in SettingName]: z.ZodOptional<Fields[K]["input"]> };

const outputShape = Object.fromEntries(
  Object.entries(SETTINGS_FIELDS).map(([name, field]) => [name, field.output]),
) as { [K in SettingName]: Fields[K]["output"] };

export const AccountSettingsUpdateInput = z
  .strictObject(inputShape)
  .meta({ id: "AccountSettingsUpdateInput", description: "The settings to change; absent ones are kept, null clears one." });

export const AccountSettings = z
  .object({
    object: z.literal("account_settings"),
    id: z.string().meta({ description: "The account's id.", example: "acc_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    ...outputShape,
    livemode: z.boolean(),
  })
  .meta({ id: "AccountSettings" });

export type AccountSettingsObject = z.input<typeof AccountSettings>;
export type AccountSettingsChanges = z.output<typeof AccountSettingsUpdateInput>;
