import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { DateTime } from "@/lib/schemas";
import { LOCALES, LocaleSchema } from "@/lib/account-settings/schema";
import { EMAIL_STATUSES, EMAIL_TYPES, EmailTypeSchema } from "@/lib/email-outbox/types";

export const Email = z
  .object({
    object: z.literal("email"),
    id: z.string().meta({ example: "eml_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    type: z.enum(EMAIL_TYPES),
    to: z.array(z.string()).meta({ description: "The recipients." }),
    subject: z.string(),
    status: z.enum(EMAIL_STATUSES).meta({
      description:
        "`queued` (waiting or retrying after a temporary SMTP failure), `sent` (the SMTP server accepted it), `failed` (a permanent SMTP failure, or temporary failures beyond the retries), `rate_limited` (the account's hourly limit refused it; never sent).",
    }),
    attempts: z.number().int(),
    smtp_response: z.string().nullable().meta({ description: "The SMTP server's last answer, or why it was not sent." }),
    customer: z.string().nullable(),
    invoice: z.string().nullable(),
    credit_note: z.string().nullable(),
    event: z.string().nullable().meta({ description: "The event (`evt_…`) that caused it, if an event did." }),
    message_id: z.string().meta({ description: "The Message-ID header, fixed when the email was queued." }),
    created: DateTime,
    sent_at: DateTime.nullable(),
    livemode: z.boolean(),
  })
  .meta({ id: "Email" });

export const EmailList = listEnvelopeSchema(Email, "EmailList");

export const EmailListQuery = PaginationQuery.extend({
  customer: z.string().min(1).optional().meta({ description: "Only emails about this customer." }),
  invoice: z.string().min(1).optional().meta({ description: "Only emails about this invoice." }),
  type: EmailTypeSchema.optional(),
  status: z.enum(EMAIL_STATUSES, { error: `Must be one of ${EMAIL_STATUSES.join(", ")}.` }).optional(),
});

export const EmailPreview = z
  .object({ object: z.literal("email_preview"), id: z.string(), subject: z.string(), html: z.string(), text: z.string() })
  .meta({ id: "EmailPreview" });

export const EmailTemplatePreviewQuery = z.strictObject({
  locale: LocaleSchema.optional().meta({ description: "The language to render: `en`, `fr` or `de`. Default: the account's `default_locale`." }),
});

export const EmailTemplatePreview = z
  .object({
    object: z.literal("email_template_preview"),
    type: z.enum(EMAIL_TYPES),
    locale: z.enum(LOCALES),
    subject: z.string(),
    html: z.string(),
    text: z.string().meta({ description: "The plain-text part." }),
  })
  .meta({ id: "EmailTemplatePreview" });

export const TestEmailInput = z
  .strictObject({ to: z.email().max(254).meta({ description: "Where to send the test email." }) })
  .meta({ id: "TestEmailInput" });

export type EmailObject = z.input<typeof Email>;
