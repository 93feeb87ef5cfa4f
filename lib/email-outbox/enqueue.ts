import { and, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { accounts, customers, emails } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { realNow } from "@/lib/time";
import { config } from "@/lib/config";
import { newId } from "@/lib/ids";
import { rowsOf } from "@/lib/rows";
import type { EmailType } from "./types";
import { emailLocale, subjectOf } from "./wording";

/*
 * The outbox's writing side. It runs inside the transaction of the change that causes the email
 * (emitEvent calls enqueueForEvent; `POST /invoices/{id}/send` and the portal link call
 * enqueueEmail in theirs), so the email exists exactly when its cause does. This file sits in the
 * events layer (eslint.config.mjs): it reads the database and nothing of the domain.
 */

/** The events that cause an email, and the template each causes. */
const EVENT_EMAILS: Readonly<Record<string, EmailType>> = {
  // Only a send_invoice invoice with something to pay (`emailedEvent`).
  "invoice.finalized": "invoice",
  "invoice.paid": "receipt",
  "invoice.payment_failed": "payment_failed",
  "invoice.payment_action_required": "payment_action_required",
  "credit_note.created": "credit_note",
  "customer.subscription.trial_will_end": "trial_ending",
  // On the renewal invoice's reserved id: the invoice does not exist yet (the email reads the event's preview).
  "invoice.upcoming": "upcoming_renewal",
  "customer.subscription.cancelled": "subscription_cancelled",
};

/** The types about a subscription: no invoice document, so the customer's language, else the account's. */
const SUBSCRIPTION_EMAILS: ReadonlySet<EmailType> = new Set(["trial_ending", "upcoming_renewal", "subscription_cancelled"]);

export type EnqueueInput = {
  type: EmailType;
  to: readonly string[];
  /** Unique per account: the causing event or request and the template. A repeat is a no-op. */
  causeKey: string;
  locale: unknown;
  /** The invoice's or credit note's number in the subject. */
  number: string;
  customerId?: string | null;
  invoiceId?: string | null;
  creditNoteId?: string | null;
  eventId?: string | null;
  /** A secret link the email carries (the portal sign-in link): kept until the email is settled. */
  link?: string | null;
};

/** The From display name: the sender name set, else the business name, else the account's name. */
export function senderNameOf(account: { emailSenderName: string | null; businessName: string | null; name: string }): string {
  return account.emailSenderName ?? account.businessName ?? account.name;
}

/**
 * Queues one email in `tx`, unless its type is switched off or its cause was queued before
 * (the unique cause key).
 * Returns the id, or null when nothing was queued.
 */
export async function enqueueEmail(
  tx: Executor,
  ctx: ServiceContext,
  input: EnqueueInput,
  /** The account's row when the caller read it already (with its other reads, in one round trip). */
  accountRow?: AccountRow,
): Promise<string | null> {
  const account = accountRow ?? (await senderAccountOf(tx, ctx.accountId));
  if (!account || (input.type !== "test" && account.emailTypesDisabled.includes(input.type))) return null;
  const id = newId("email");
  const domain = config().email.from.split("@")[1] ?? "localhost";
  const inserted = await tx
    .insert(emails)
    .values({
      id,
      accountId: ctx.accountId,
      type: input.type,
      to: [...input.to],
      subject: subjectOf(emailLocale(input.locale ?? account.defaultLocale), input.type, senderNameOf(account), input.number),
      status: "queued",
      customerId: input.customerId ?? null,
      invoiceId: input.invoiceId ?? null,
      creditNoteId: input.creditNoteId ?? null,
      eventId: input.eventId ?? null,
      link: input.link ?? null,
      causeKey: input.causeKey,
      messageId: `<${id}@${domain}>`,
      // Sending runs on real time, whatever the account's test clock says: due at once.
      dueAt: realNow(),
      created: ctx.now(),
    })
    .onConflictDoNothing({ target: [emails.accountId, emails.causeKey] })
    .returning({ id: emails.id });
  return inserted.length > 0 ? id : null;
}

type AccountRow = typeof accounts.$inferSelect;

/** The sending account's row: its switched-off email types, names and language. */
async function senderAccountOf(tx: Executor, accountId: string): Promise<AccountRow | undefined> {
  const [account] = await tx.select().from(accounts).where(eq(accounts.id, accountId));
  return account;
}

/** The customer's address, their extra invoice recipients (`invoice_emails`) and language, or none (a deleted customer is not written to). */
async function recipientsOf(tx: Executor, accountId: string, customerId: unknown): Promise<{ to: string[]; locale: string | null }> {
  if (typeof customerId !== "string") return { to: [], locale: null };
  const [customer] = await tx
    .select({ email: customers.email, invoiceEmails: customers.invoiceEmails, locale: customers.preferredLocale })
    .from(customers)
    .where(and(eq(customers.accountId, accountId), eq(customers.id, customerId), isNull(customers.deletedAt)));
  return customer ? { to: [customer.email, ...customer.invoiceEmails], locale: customer.locale } : { to: [], locale: null };
}

/**
 * Whether an event of EVENT_EMAILS sends its email: a finalized invoice is emailed only when it
 * is `send_invoice` and has an amount due (one finalized at zero is paid at once: its receipt says so).
 */
function emailedEvent(event: { type: string; data: Record<string, unknown> }): boolean {
  if (event.type !== "invoice.finalized") return true;
  return event.data.collection_method === "send_invoice" && Number(event.data.due_amount_atom) > 0;
}

/** Called by emitEvent for every event: queues the email this event causes, if any. */
export async function enqueueForEvent(
  tx: Executor,
  ctx: ServiceContext,
  event: { id: string; type: string; aggregateId: string; data: Record<string, unknown> },
): Promise<string | null> {
  const type = EVENT_EMAILS[event.type];
  if (!type || !emailedEvent(event)) return null;
  const data = event.data;
  const isCreditNote = type === "credit_note";
  const aboutSubscription = SUBSCRIPTION_EMAILS.has(type);
  const invoiceId = aboutSubscription ? null : isCreditNote ? data.invoice : event.aggregateId;
  // The recipients, the document's language and the sender's account in one round trip, not three.
  const [{ to, locale }, invoiceLocale, account] = await Promise.all([
    recipientsOf(tx, ctx.accountId, data.customer),
    aboutSubscription ? null : invoiceDocumentLocale(tx, typeof invoiceId === "string" ? invoiceId : null),
    senderAccountOf(tx, ctx.accountId),
  ]);
  if (to.length === 0 || !account) return null;
  const document = aboutSubscription ? locale : invoiceLocale;
  return enqueueEmail(tx, ctx, {
    type,
    to,
    causeKey: `${event.id}:${type}`,
    locale: document,
    number: String(data.number ?? event.aggregateId),
    customerId: String(data.customer),
    invoiceId: typeof invoiceId === "string" ? invoiceId : null,
    creditNoteId: isCreditNote ? event.aggregateId : null,
    eventId: event.id,
  }, account);
}

/** The invoice document's language (fixed at finalization), if it has one. */
async function invoiceDocumentLocale(tx: Executor, invoiceId: string | null): Promise<unknown> {
  if (!invoiceId) return null;
  const result = await tx.execute(sql`select document->>'locale' as locale from invoices where id = ${invoiceId}`);
  return rowsOf<{ locale: string | null }>(result)[0]?.locale ?? null;
}

/**
 * The final dunning notice: dunning's last retry of `invoice` failed and it was marked
 * uncollectible by the event `eventId` (lib/invoices/settle.ts, in that event's transaction). Not
 * an EVENT_EMAILS entry: a merchant marking an invoice uncollectible emits the same event type and
 * sends nothing. One per that event (its cause key).
 */
export async function enqueueFinalNotice(
  tx: Executor,
  ctx: ServiceContext,
  invoice: { id: string; number: string | null; customerId: string | null },
  eventId: string,
): Promise<string | null> {
  const { to } = await recipientsOf(tx, ctx.accountId, invoice.customerId);
  if (to.length === 0) return null;
  return enqueueEmail(tx, ctx, {
    type: "final_notice",
    to,
    causeKey: `${eventId}:final_notice`,
    locale: await invoiceDocumentLocale(tx, invoice.id),
    number: invoice.number ?? invoice.id,
    customerId: invoice.customerId,
    invoiceId: invoice.id,
    eventId,
  });
}
