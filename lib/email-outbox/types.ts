import { z } from "zod";

/**
 * The email types (templates) the service sends, each switchable per account (Settings → Emails).
 * `test` is the settings page's "send a test email" and cannot be switched off.
 */
export const EMAIL_TYPES = [
  "invoice",
  "receipt",
  "payment_failed",
  "payment_action_required",
  "final_notice",
  "credit_note",
  "trial_ending",
  "upcoming_renewal",
  "subscription_cancelled",
  "portal_link",
  "test",
] as const;
export type EmailType = (typeof EMAIL_TYPES)[number];
export const SWITCHABLE_EMAIL_TYPES = EMAIL_TYPES.filter((type) => type !== "test");

export const EmailTypeSchema = z.enum(EMAIL_TYPES, { error: `Must be one of ${EMAIL_TYPES.join(", ")}.` });

export const EMAIL_STATUSES = ["queued", "sent", "failed", "rate_limited"] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** CR or LF in a header value would start a new header (header injection): refused, never stripped. */
export const NO_LINE_BREAKS = /^[^\r\n]*$/;

/**
 * The operations whose bodies hold recipients' addresses or messages: the request log keeps
 * neither their request nor their response body (lib/request-logs/record.ts).
 */
export const EMAIL_OPERATION_IDS: ReadonlySet<string> = new Set(["listEmails", "getEmail", "previewEmail", "sendTestEmail", "sendInvoice", "requestPortalSignIn"]);
