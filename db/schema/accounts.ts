import { bigint, boolean, index, integer, jsonb, pgEnum, pgTable, text } from "drizzle-orm/pg-core";
import type { Permissions } from "@/lib/permissions";
import { createdAt, id, time } from "./columns";
import { organizations } from "./organizations";

/** A postal address as the API takes it (seller and buyer alike); `country` is ISO 3166-1 alpha-2. */
export type PostalAddress = {
  line1: string;
  line2: string | null;
  postal_code: string;
  city: string;
  country: string;
};

export const accounts = pgTable(
  "accounts",
  {
    id: id(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    name: text("name").notNull(),
    /** Live or sandbox is a property of the account, not of identifiers (DESIGN.md decision 1). */
    livemode: boolean("livemode").notNull(),
    /**
     * The test clock: how far this account's time runs ahead of the real clock (sandbox only).
     * Every domain timestamp of the account is real time plus this offset (lib/clock).
     */
    clockOffsetMs: bigint("clock_offset_ms", { mode: "number" }).notNull().default(0),
    /*
     * The account settings (lib/account-settings): one column per field, named as the field in
     * camelCase, so a setting is its column plus one line in lib/account-settings/schema.ts.
     * The seller's details printed on invoices:
     */
    businessName: text("business_name"),
    address: jsonb("address").$type<PostalAddress>(),
    taxId: text("tax_id"),
    supportEmail: text("support_email"),
    /** `#RRGGBB`, the emails' accent colour (null: the service's own). */
    brandColor: text("brand_color"),
    /** Null: derived from the business name (lib/account-settings/prefix.ts). */
    invoicePrefix: text("invoice_prefix"),
    invoiceFooter: text("invoice_footer"),
    defaultLocale: text("default_locale").notNull().default("en"),
    /** The tax rate (`txr_…`) of invoice lines that name none, when the customer has no default either. */
    defaultTaxRate: text("default_tax_rate"),
    /** How long after a period ends its usage events are still accepted and counted (docs/usage-billing.md). */
    usageGraceSeconds: integer("usage_grace_seconds").notNull().default(3600),
    /** How long a past_due subscription keeps granting its features (lib/entitlements/grace.ts reads it). */
    entitlementPastDueGraceDays: integer("entitlement_past_due_grace_days").notNull().default(7),
    /** Which change requests without `effective` wait for the period end (lib/subscription-changes/effective.ts). */
    planChangePolicy: text("plan_change_policy").$type<"immediate" | "upgrade_now_downgrade_at_period_end">().notNull().default("immediate"),
    /** Email (lib/emails): the From display name (null: the business name), the Reply-To (null: the support email). */
    emailSenderName: text("email_sender_name"),
    emailReplyTo: text("email_reply_to"),
    /** Messages sent per rolling hour; beyond it they are marked rate_limited, not sent. */
    emailHourlyLimit: integer("email_hourly_limit").notNull().default(1000),
    /** The email types the merchant switched off (every type is on by default). */
    emailTypesDisabled: text("email_types_disabled").array().notNull().default([]),
    created: createdAt(),
  },
  (t) => [index("accounts_organization_idx").on(t.organizationId)],
);

export const tokenKindEnum = pgEnum("token_kind", ["secret", "publishable", "restricted"]);

/**
 * API tokens. The token itself is never stored: only its SHA-256, a display prefix and its last
 * four characters. `id` is the public, non-secret handle (shown in the dashboard, used as actor_id).
 */
export const apiTokens = pgTable(
  "api_tokens",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    kind: tokenKindEnum("kind").notNull(),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    displayPrefix: text("display_prefix").notNull(),
    lastFour: text("last_four").notNull(),
    created: createdAt(),
    lastUsedAt: time("last_used_at"),
    revokedAt: time("revoked_at"),
    /** Who made it: a user id, or `seed` for the demo tokens that `npm run seed` re-issues. */
    createdBy: text("created_by"),
    description: text("description"),
    /** A restricted key's level per resource (lib/permissions.ts); null for the other kinds. */
    permissions: jsonb("permissions").$type<Permissions>(),
    /** Client address ranges (CIDR) the key may be used from; null: any. */
    allowedIps: text("allowed_ips").array(),
    /** From this instant the key answers 401 (real time, not a test clock). */
    expiresAt: time("expires_at"),
    /** The address of the call that last wrote `last_used_at` (at most once a minute). */
    lastUsedIp: text("last_used_ip"),
    /** After a roll with overlap: the previous secret's hash, valid until `previous_token_expires_at`. */
    previousTokenHash: text("previous_token_hash").unique(),
    previousTokenExpiresAt: time("previous_token_expires_at"),
  },
  (t) => [index("api_tokens_account_idx").on(t.accountId, t.created, t.id)],
);
