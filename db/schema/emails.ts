import { index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id, time } from "./columns";

/**
 * The transactional email outbox (lib/emails, docs/emails.md). A row is written in the transaction
 * of the change that causes it, so no cause is lost; `cause_key` (the causing event or request and
 * the template) is unique per account, so no cause is sent twice. The sender claims a row by
 * moving `due_at` past its lease: another instance sees it due only if this one died.
 */
export const emails = pgTable(
  "emails",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    type: text("type").notNull(),
    to: text("to").array().notNull(),
    subject: text("subject").notNull(),
    /** queued | sent | failed | rate_limited (the hourly limit refused it: never sent). */
    status: text("status").$type<"queued" | "sent" | "failed" | "rate_limited">().notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    /** The SMTP server's last answer (or the transport's error). */
    smtpResponse: text("smtp_response"),
    customerId: text("customer_id"),
    invoiceId: text("invoice_id"),
    creditNoteId: text("credit_note_id"),
    /** The causing event (`evt_…`), when an event caused it. */
    eventId: text("event_id"),
    causeKey: text("cause_key").notNull(),
    /** Fixed at enqueue: a repeat after a crash between the server's acceptance and our record carries the same id. */
    messageId: text("message_id").notNull(),
    /** A secret link the email carries (the portal sign-in link), cleared once the email is settled. */
    link: text("link"),
    /** Null once settled; while queued: when it may be claimed (a claim moves it to the lease's end). */
    dueAt: time("due_at"),
    created: createdAt(),
    /**
     * When it was sent; while queued and claimed, the sender's reservation of the hourly limit
     * (lib/emails/send.ts), never shown (lib/emails/serialize.ts).
     */
    sentAt: time("sent_at"),
  },
  (t) => [
    uniqueIndex("emails_cause_key_idx").on(t.accountId, t.causeKey),
    index("emails_due_idx").on(t.dueAt),
    // The hourly limit's count (lib/emails/send.ts): a range scan of the account's last hour.
    index("emails_account_sent_idx").on(t.accountId, t.sentAt),
    index("emails_account_created_idx").on(t.accountId, t.created, t.id),
    index("emails_account_customer_idx").on(t.accountId, t.customerId, t.created),
    index("emails_account_invoice_idx").on(t.accountId, t.invoiceId, t.created),
  ],
);
