import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { EMAIL_TYPES } from "@/lib/email-outbox/types";
import { Email, EmailList, EmailListQuery, EmailPreview, EmailTemplatePreview, EmailTemplatePreviewQuery, TestEmailInput } from "./schema";

const tag = "Emails";

export const listEmailsOperation = defineOperation({
  operationId: "listEmails",
  method: "GET",
  path: "/{account_id}/emails",
  unscopedPath: "/emails",
  summary: "List emails",
  description:
    "The email log, newest first: every email queued for the account's customers (receipts, invoices, failed payments, credit notes, tests) with its status and the SMTP server's answer. Filter `customer`, `invoice`, `type`, `status`, `created[…]`. Bodies and addresses never reach the request log.",
  tag,
  access: "secret",
  permission: needs("logs", "read"),
  query: EmailListQuery,
  response: { status: 200, description: "A page of emails.", schema: EmailList },
});

export const getEmailOperation = defineOperation({
  operationId: "getEmail",
  method: "GET",
  path: "/{account_id}/emails/{email_id}",
  unscopedPath: "/emails/{email_id}",
  summary: "Retrieve an email",
  tag,
  access: "secret",
  permission: needs("logs", "read"),
  response: { status: 200, description: "The email.", schema: Email },
  errors: [404],
});

export const previewEmailOperation = defineOperation({
  operationId: "previewEmail",
  method: "GET",
  path: "/{account_id}/emails/{email_id}/preview",
  unscopedPath: "/emails/{email_id}/preview",
  summary: "Preview an email",
  description: "The email's subject, HTML and plain text as they are (or were) sent, rendered now from what it names.",
  tag,
  access: "secret",
  permission: needs("logs", "read"),
  response: { status: 200, description: "The rendered email.", schema: EmailPreview },
  errors: [404],
});

export const previewEmailTemplateOperation = defineOperation({
  operationId: "previewEmailTemplate",
  method: "GET",
  path: "/{account_id}/email-templates/{type}/preview",
  unscopedPath: "/email-templates/{type}/preview",
  summary: "Preview an email template",
  description:
    `The subject, HTML and plain text of an email type (${EMAIL_TYPES.map((type) => `\`${type}\``).join(", ")}) as the sender would write it, with sample facts: invoice \`PREFIX-0042\` (credit note \`PREFIX-CN-0007\`) with the account's invoice prefix, an amount of 1234.50 in the currency of the account's newest price (else USD), dates counted from the account's time and links to example.com; branded with the account's sender name, support email and brand colour. Nothing is written or sent. An unknown type is a 404 naming the types.`,
  tag,
  access: "secret",
  permission: needs("logs", "read"),
  query: EmailTemplatePreviewQuery,
  response: { status: 200, description: "The rendered sample email.", schema: EmailTemplatePreview },
  errors: [404],
});

export const sendTestEmailOperation = defineOperation({
  operationId: "sendTestEmail",
  method: "POST",
  path: "/{account_id}/emails/test",
  unscopedPath: "/emails/test",
  summary: "Send a test email",
  description: "Queues a test email to `to` with the account's sender name and reply-to (Settings → Emails); it is sent as every email is and listed in the log.",
  tag,
  access: "secret",
  permission: needs("settings", "write"),
  body: TestEmailInput,
  response: { status: 201, description: "The queued email.", schema: Email },
  errors: [415],
});

export const sendInvoiceOperation = defineOperation({
  operationId: "sendInvoice",
  method: "POST",
  path: "/{account_id}/invoices/{invoice_id}/send",
  unscopedPath: "/invoices/{invoice_id}/send",
  summary: "Email an invoice",
  description:
    "Queues the invoice email to its customer: the PDF (the bytes of `GET /invoices/{id}/pdf`) attached and the hosted invoice link. Each call is a new email (with an `Idempotency-Key`, a repeat is one). A draft or void invoice is a 409; the `invoice` email type switched off is a 409 too.",
  tag,
  access: "secret",
  permission: needs("invoices", "write"),
  response: { status: 201, description: "The queued email.", schema: Email },
  errors: [404, 409],
});

export const emailOperations = [
  listEmailsOperation,
  getEmailOperation,
  previewEmailOperation,
  previewEmailTemplateOperation,
  sendTestEmailOperation,
  sendInvoiceOperation,
];
