import type { emails } from "@/db/schema";
import type { EmailObject } from "./schema";
import type { EmailStatus, EmailType } from "@/lib/email-outbox/types";

export function serializeEmail(row: typeof emails.$inferSelect, livemode: boolean): EmailObject {
  return {
    object: "email",
    id: row.id,
    type: row.type as EmailType,
    to: row.to,
    subject: row.subject,
    status: row.status as EmailStatus,
    attempts: row.attempts,
    smtp_response: row.smtpResponse,
    customer: row.customerId,
    invoice: row.invoiceId,
    credit_note: row.creditNoteId,
    event: row.eventId,
    message_id: row.messageId,
    created: row.created.toISOString(),
    sent_at: row.sentAt?.toISOString() ?? null,
    livemode,
  };
}
