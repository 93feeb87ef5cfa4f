import { and, asc, eq, inArray } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts, customers, events, invoiceLines, invoices, type emails } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { config } from "@/lib/config";
import { creditNotePdf } from "@/lib/credit-notes/read";
import { latestPaymentIntents, loadInvoice } from "@/lib/invoices/core";
import { invoicePdf } from "@/lib/invoices/hosted";
import { hostedInvoiceUrl, type InvoiceLineRow, type InvoiceWithLines } from "@/lib/invoices/serialize";
import { senderNameOf } from "@/lib/email-outbox/enqueue";
import type { EmailType } from "@/lib/email-outbox/types";
import { emailLocale, type EmailLocale } from "@/lib/email-outbox/wording";
import { composeEmail, eventFactRows, EVENT_FACT_TYPES, invoiceFactRows, type EmailBranding, type EmailFacts } from "./compose";

export type EmailRow = typeof emails.$inferSelect;

/** The most an email's attachments may weigh together; a bigger one fails permanently. */
export const MAX_ATTACHMENTS_BYTES = 10 * 1024 * 1024;

export type RenderedEmail = {
  from: { name: string; address: string };
  replyTo: string | null;
  to: string[];
  subject: string;
  messageId: string;
  html: string;
  text: string;
  attachments: { filename: string; content: Buffer; contentType: string }[];
};

type Facts = EmailFacts & { attachments: RenderedEmail["attachments"] };

/** What the email's body shows of the account: its sender name, support address and brand colour. */
export function brandingOf(account: { emailSenderName: string | null; businessName: string | null; name: string; supportEmail: string | null; brandColor: string | null }): EmailBranding {
  return { seller: senderNameOf(account), supportEmail: account.supportEmail, brandColor: account.brandColor };
}

/** The types that attach the invoice's (or credit note's) PDF. */
const ATTACHING_TYPES: ReadonlySet<EmailType> = new Set(["invoice", "receipt", "credit_note"]);

/** What the invoice emails show and attach: the PDF exactly as `GET /invoices/{id}/pdf` serves it, and the hosted link. */
async function invoiceFacts(ctx: ServiceContext, row: EmailRow, type: EmailType, known?: InvoiceWithLines): Promise<Facts> {
  const db = await getDb();
  const preloaded = known && known.invoice.id === row.invoiceId && known.invoice.accountId === row.accountId ? known : undefined;
  const [invoice] = preloaded
    ? [preloaded.invoice]
    : await db.select().from(invoices).where(and(eq(invoices.accountId, row.accountId), eq(invoices.id, row.invoiceId ?? "")));
  if (!invoice) throw new Error(`The email's invoice '${row.invoiceId}' does not exist.`);
  const locale = emailLocale(invoice.document?.locale);
  const rows = invoiceFactRows(type, invoice, locale);
  const attachments: RenderedEmail["attachments"] = [];
  if (!ATTACHING_TYPES.has(type)) {
    // payment_failed and payment_action_required: the hosted link, where the customer pays or confirms.
  } else if (type === "credit_note" && row.creditNoteId) {
    const bytes = await creditNotePdf({ ctx, input: { id: row.creditNoteId } });
    attachments.push({ filename: `credit-note-${row.creditNoteId}.pdf`, content: bytes, contentType: "application/pdf" });
  } else if (invoice.document !== null) {
    attachments.push({ filename: `invoice-${invoice.number ?? invoice.id}.pdf`, content: await invoicePdf(preloaded ?? (await loadInvoice(db, invoice))), contentType: "application/pdf" });
  }
  return { rows, link: invoice.hostedToken ? hostedInvoiceUrl(invoice.hostedToken) : null, attachments, locale };
}

/** The customer's language, else the account's (emails without an invoice document). */
async function customerLocale(row: EmailRow, accountLocale: string): Promise<EmailLocale> {
  const db = await getDb();
  const [customer] = row.customerId ? await db.select({ locale: customers.preferredLocale }).from(customers).where(eq(customers.id, row.customerId)) : [];
  return emailLocale(customer?.locale ?? accountLocale);
}

/**
 * What the subscription emails show, from the event that caused them (the subscription as it was
 * then; for the upcoming renewal, the renewal invoice's preview), in the customer's language
 * (else the account's).
 */
async function eventFacts(row: EmailRow, type: EmailType, accountLocale: string): Promise<Facts> {
  const db = await getDb();
  const [event] = row.eventId ? await db.select({ data: events.data }).from(events).where(eq(events.id, row.eventId)) : [];
  if (!event) throw new Error(`The email's event '${row.eventId}' does not exist.`);
  const locale = await customerLocale(row, accountLocale);
  const rows = eventFactRows(type, event.data, locale);
  return { rows, link: null, attachments: [], locale };
}

/**
 * Renders a queued email from what its row names, at send time: the PDF is the invoice's fixed
 * document (the same bytes every time), so a retry sends the same message.
 */
export async function renderEmail(
  ctx: ServiceContext,
  row: EmailRow,
  extra: { link?: string } = {},
  /** The row's account and invoice, when the caller has just read them (the sender reads them once per claimed batch). */
  known: { account?: typeof accounts.$inferSelect; invoice?: InvoiceWithLines } = {},
): Promise<RenderedEmail> {
  const db = await getDb();
  const [account] = known.account?.id === row.accountId ? [known.account] : await db.select().from(accounts).where(eq(accounts.id, row.accountId));
  if (!account) throw new Error(`The email's account '${row.accountId}' does not exist.`);
  const type = row.type as EmailType;
  const facts: Facts = EVENT_FACT_TYPES.has(type)
    ? await eventFacts(row, type, account.defaultLocale)
    : row.invoiceId
      ? await invoiceFacts(ctx, row, type, known.invoice)
      : { rows: [], link: extra.link ?? row.link ?? null, attachments: [], locale: await customerLocale(row, account.defaultLocale) };
  const branding = brandingOf(account);
  const { html, text } = composeEmail(type, facts, branding);
  return {
    from: { name: branding.seller.replace(/[\r\n]+/g, " "), address: config().email.from },
    replyTo: account.emailReplyTo ?? account.supportEmail,
    to: row.to,
    subject: row.subject,
    messageId: row.messageId,
    html,
    text,
    attachments: facts.attachments,
  };
}

/**
 * The invoices (with their lines and latest payment intent) that claimed emails render, read in
 * three queries for the whole batch rather than three per email. Only the reads are shared: each
 * email still renders its own PDF.
 */
export async function invoicesOfEmails(rows: readonly EmailRow[]): Promise<Map<string, InvoiceWithLines>> {
  const ids = [...new Set(rows.flatMap((row) => (row.invoiceId && !EVENT_FACT_TYPES.has(row.type as EmailType) ? [row.invoiceId] : [])))];
  if (ids.length === 0) return new Map();
  const db = await getDb();
  const [found, lines, latest] = await Promise.all([
    db.select().from(invoices).where(inArray(invoices.id, ids)),
    db.select().from(invoiceLines).where(inArray(invoiceLines.invoiceId, ids)).orderBy(asc(invoiceLines.created), asc(invoiceLines.id)),
    latestPaymentIntents(db, ids),
  ]);
  const linesOf = new Map<string, InvoiceLineRow[]>();
  for (const line of lines) linesOf.set(line.invoiceId, [...(linesOf.get(line.invoiceId) ?? []), line]);
  return new Map(found.map((invoice) => [invoice.id, { invoice, lines: linesOf.get(invoice.id) ?? [], paymentIntent: latest.get(invoice.id) ?? null }]));
}
