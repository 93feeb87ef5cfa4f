import { z } from "zod";
import { DateTime } from "@/lib/schemas";

/*
 * The hosted customer portal's configuration, one per account (Stripe's billing portal
 * configuration, flattened to what this service offers). `POST` changes the sections it names;
 * a section's fields it leaves out keep their values.
 */

export const CANCELLATION_REASONS = [
  "too_expensive",
  "missing_features",
  "switched_service",
  "unused",
  "customer_service",
  "too_complex",
  "low_quality",
  "other",
] as const;

const HttpsUrl = z
  .url({ protocol: /^https$/, error: "Must be an https: URL." })
  .max(2048)
  .meta({ description: "An absolute `https:` URL.", example: "https://example.com/logo.png" });

const ReturnUrl = z
  .url({ protocol: /^https?$/, error: "Must be an absolute http: or https: URL." })
  .max(2048)
  .meta({ example: "https://example.com/account" });

const AccentColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, "A hex colour, #rrggbb.")
  .meta({ example: "#4f46e5" });

const Toggle = z.strictObject({ enabled: z.boolean() });

const CancelSection = z.strictObject({
  enabled: z.boolean(),
  mode: z.enum(["immediately", "at_period_end"]).meta({ description: "What a customer's cancel does." }),
  cancellation_reasons: z.strictObject({
    enabled: z.boolean(),
    options: z.array(z.enum(CANCELLATION_REASONS)).min(1).max(CANCELLATION_REASONS.length),
  }),
});

/** When a portal switch takes effect; `account_policy` follows the account's `plan_change_policy`. */
export const PORTAL_PLAN_CHANGES = ["account_policy", "immediate", "upgrade_now_downgrade_at_period_end"] as const;
export type PortalPlanChange = (typeof PORTAL_PLAN_CHANGES)[number];

const UpdateSection = z.strictObject({
  enabled: z.boolean().meta({ description: "Switch plan (between `prices`)." }),
  plan_change: z.enum(PORTAL_PLAN_CHANGES).meta({
    description:
      "The plan-change rule of a customer's switch. `immediate`: every switch applies now (an upgrade charged the change-request preview's proration). `upgrade_now_downgrade_at_period_end`: a switch with something due now (an upgrade) applies now; any other (a downgrade) is scheduled for the period end and listed in `pending_changes`, where the customer can cancel it. `account_policy` (default): the account's `plan_change_policy`.",
  }),
  prices: z.array(z.string().min(1)).max(20).meta({ description: "The recurring prices a customer may switch between (ids)." }),
  quantity: z.strictObject({
    enabled: z.boolean().meta({ description: "Change quantity." }),
    minimum: z.int().min(1).max(10_000),
    maximum: z.int().min(1).max(10_000),
  }),
});

const Branding = z.strictObject({
  business_name: z.string().min(1).max(120).nullable(),
  accent_color: AccentColor.nullable(),
  logo_url: HttpsUrl.nullable().meta({ description: "Shown only when it is an `https:` URL (anything else is a 422)." }),
});

const Features = z.strictObject({
  invoice_history: Toggle,
  customer_update: Toggle.meta({ description: "Update billing details." }),
  payment_method_update: Toggle,
  subscription_cancel: CancelSection,
  subscription_pause: Toggle,
  subscription_update: UpdateSection,
});

export type PortalSettings = {
  features: z.output<typeof Features>;
  branding: z.output<typeof Branding>;
  default_return_url: string | null;
};

export const DEFAULT_PORTAL_SETTINGS: PortalSettings = {
  features: {
    invoice_history: { enabled: true },
    customer_update: { enabled: true },
    payment_method_update: { enabled: true },
    subscription_cancel: {
      enabled: true,
      mode: "at_period_end",
      cancellation_reasons: { enabled: true, options: [...CANCELLATION_REASONS] },
    },
    subscription_pause: { enabled: false },
    subscription_update: { enabled: false, plan_change: "account_policy", prices: [], quantity: { enabled: false, minimum: 1, maximum: 100 } },
  },
  branding: { business_name: null, accent_color: null, logo_url: null },
  default_return_url: null,
};

/** Deep-partial sections: what is named changes, the rest is kept. */
export const PortalConfigurationUpdateInput = z
  .strictObject({
    features: z
      .strictObject({
        invoice_history: Toggle.optional(),
        customer_update: Toggle.optional(),
        payment_method_update: Toggle.optional(),
        subscription_cancel: CancelSection.extend({ cancellation_reasons: CancelSection.shape.cancellation_reasons.partial() }).partial().optional(),
        subscription_pause: Toggle.optional(),
        subscription_update: UpdateSection.extend({ quantity: UpdateSection.shape.quantity.partial() }).partial().optional(),
      })
      .optional(),
    branding: Branding.partial().optional(),
    default_return_url: ReturnUrl.nullable().optional(),
  })
  .meta({ id: "PortalConfigurationUpdateInput", example: { features: { subscription_pause: { enabled: true } }, branding: { accent_color: "#4f46e5" } } });

export const PortalConfiguration = z
  .object({
    object: z.literal("portal_configuration"),
    features: Features,
    branding: Branding,
    default_return_url: z.string().nullable(),
    plan_change_rule: z.literal("change_request").meta({
      description:
        "How a plan or quantity switch applies: through a subscription change request (its preview's amounts). When it takes effect: `features.subscription_update.plan_change`.",
    }),
    livemode: z.boolean(),
    updated: DateTime.nullable().meta({ description: "Null until the account first saves one (the defaults apply)." }),
  })
  .meta({ id: "PortalConfiguration" });

export type PortalConfigurationObject = z.input<typeof PortalConfiguration>;

/* Portal sessions (Stripe's billing_portal.session): a single-use link to the portal for one customer. */

export const PORTAL_FLOW_TYPES = ["subscription_cancel", "subscription_update", "payment_method_update"] as const;

export const PortalFlowInput = z
  .strictObject({
    type: z.enum(PORTAL_FLOW_TYPES).meta({ description: "The page the link opens on." }),
    subscription: z.string().min(1).max(255).optional().meta({ description: "The customer's subscription (`sub_…`) the flow is about; required for the subscription flows." }),
  })
  .meta({ id: "PortalFlowInput" });

export type PortalFlow = { type: (typeof PORTAL_FLOW_TYPES)[number]; subscription: string | null };

export const PortalSessionCreateInput = z
  .strictObject({
    customer: z.string().min(1).max(255).meta({ description: "The customer (`cus_…`) the portal is for." }),
    return_url: ReturnUrl.optional().meta({ description: "Where the portal's \"Return\" link goes; default: the configuration's `default_return_url`." }),
    flow: PortalFlowInput.optional(),
  })
  .meta({ id: "PortalSessionCreateInput", example: { customer: "cus_test_01kaxz4c7e5r3x3m9k2w8q4tgd5", return_url: "https://example.com/account" } });

export const PortalSession = z
  .object({
    object: z.literal("portal_session"),
    id: z.string().meta({ example: "bps_test_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    url: z.string().meta({ description: "The single-use link: valid until `expires_at`, it opens once and starts a 30-minute (idle) portal session in that browser. Answered only here." }),
    expires_at: DateTime,
    return_url: z.string().nullable(),
    customer: z.string(),
    flow: z.object({ type: z.enum(PORTAL_FLOW_TYPES), subscription: z.string().nullable() }).nullable(),
    livemode: z.boolean(),
    created: DateTime,
  })
  .meta({ id: "PortalSession" });

export type PortalSessionObject = z.input<typeof PortalSession>;

export const PortalSignInInput = z
  .strictObject({ email: z.email().max(254).meta({ description: "The customer's email.", example: "ada@example.com" }) })
  .meta({ id: "PortalSignInInput" });

export const PortalSignInAnswer = z
  .object({
    object: z.literal("portal_sign_in"),
    message: z.string().meta({ description: "The same answer whether or not the email is a customer's." }),
  })
  .meta({ id: "PortalSignInAnswer" });
