import { z } from "zod";
import { DateTime } from "@/lib/schemas";

/** The spec's billing statuses (derived from the platform subscription, never stored). */
export const BILLING_STATUSES = ["active", "trialing", "past_due", "cancelled", "no_subscription", "exempt", "orphaned"] as const;
export type BillingStatusValue = (typeof BILLING_STATUSES)[number];

export const BillingStatus = z
  .object({
    cit_allowed: z.boolean().meta({ description: "cit_processing_enabled and the status allows CIT." }),
    mit_allowed: z.boolean().meta({ description: "mit_processing_enabled and the status allows MIT." }),
    cit_processing_enabled: z.boolean(),
    mit_processing_enabled: z.boolean(),
    billing_status: z.enum(BILLING_STATUSES).nullable().optional(),
    trial_days_remaining: z.number().int().nullable().optional(),
    trial_end: DateTime.nullable().optional(),
    subscription_end: DateTime.nullable().optional(),
  })
  .meta({
    id: "BillingStatus",
    description: [
      "The organization's own standing with the platform. Which payments each status allows:",
      "",
      "| billing_status | CIT | MIT |",
      "|---|---|---|",
      "| active, trialing, exempt | yes | yes |",
      "| past_due | yes | no |",
      "| cancelled, no_subscription, orphaned (or null) | no | no |",
      "",
      "`cit_allowed` = `cit_processing_enabled` AND the status allows CIT; likewise for MIT.",
      "",
      "Unless the operator turned platform billing on (`PLATFORM_BILLING=on`), no organization is billed and every one reads `exempt`; the operator's own organization is always `exempt`.",
    ].join("\n"),
  });

export type BillingStatusObject = z.input<typeof BillingStatus>;

export const BillingStatusUpdateInput = z
  .strictObject({
    cit_processing_enabled: z.boolean().optional(),
    mit_processing_enabled: z.boolean().optional(),
    billing_exempt: z.boolean().optional().meta({ description: "True: the organization is `exempt` from platform billing." }),
  })
  .meta({ id: "BillingStatusUpdateInput" });

export type BillingStatusUpdateInput = z.output<typeof BillingStatusUpdateInput>;

export const OperatorBillingStatus = BillingStatus.extend({
  organization: z.string().meta({ description: "The organization (`org_…`) that owns the account." }),
  billing_exempt: z.boolean(),
  platform_customer: z.string().nullable().meta({ description: "Its customer (`cus_…`) on the platform's billing account." }),
  platform_subscription: z.string().nullable().meta({ description: "Its newest platform subscription (`sub_…`)." }),
}).meta({ id: "OperatorBillingStatus" });

export type OperatorBillingStatusObject = z.input<typeof OperatorBillingStatus>;
