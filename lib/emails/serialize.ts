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
    // A queued row's sent_at is the sender's reservation of the hourly limit (lib/emails/send.ts), not a send.
    sent_at: row.status === "sent" ? (row.sentAt?.toISOString() ?? null) : null,
    livemode,
  };
}
