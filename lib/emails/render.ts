import { and, eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts, customers, events, invoices, type emails } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { config } from "@/lib/config";
import { creditNotePdf } from "@/lib/credit-notes/read";
import { loadInvoice } from "@/lib/invoices/core";
import { invoicePdf } from "@/lib/invoices/hosted";
import { money, longDate } from "@/lib/invoices/pdf/render";
import { hostedInvoiceUrl } from "@/lib/invoices/serialize";
import { senderNameOf } from "@/lib/email-outbox/enqueue";
import type { EmailType } from "@/lib/email-outbox/types";
import { emailLocale, WORDING, type EmailLocale } from "@/lib/email-outbox/wording";

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

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The emails' accent colour when the account's seller settings name none (`brand_color`). */
export const DEFAULT_BRAND_COLOR = "#4f46e5";

/** The account's brand colour, only as `#RRGGBB` (the setting's validation; re-checked, as it goes into a style). */
export function brandColorOf(account: { brandColor: string | null }): string {
  return account.brandColor && /^#[0-9a-fA-F]{6}$/.test(account.brandColor) ? account.brandColor : DEFAULT_BRAND_COLOR;
}

type Facts = { rows: [string, string][]; link: string | null; attachments: RenderedEmail["attachments"]; locale: EmailLocale };

type Labels = { number: string; amount: string; due: string; nextRetry: string; support: string; trialEnds: string; renews: string; cancelled: string };

const LABELS: Record<EmailLocale, Labels> = {
  en: {
    number: "Invoice",
    amount: "Amount",
    due: "Due",
    nextRetry: "Next attempt",
    support: "Questions? Write to",
    trialEnds: "Trial ends",
    renews: "Renews on",
    cancelled: "Cancelled on",
  },
  fr: {
    number: "Facture",
    amount: "Montant",
    due: "Échéance",
    nextRetry: "Prochaine tentative",
    support: "Des questions ? Écrivez à",
    trialEnds: "Fin de l'essai",
    renews: "Renouvellement le",
    cancelled: "Résilié le",
  },
  de: {
    number: "Rechnung",
    amount: "Betrag",
    due: "Fällig",
    nextRetry: "Nächster Versuch",
    support: "Fragen? Schreiben Sie an",
    trialEnds: "Testzeitraum endet",
    renews: "Verlängerung am",
    cancelled: "Gekündigt am",
  },
};

/** The types whose facts come from the causing event's data (a subscription, or the upcoming invoice's preview). */
const EVENT_FACT_TYPES: ReadonlySet<EmailType> = new Set(["trial_ending", "upcoming_renewal", "subscription_cancelled"]);

/** The types that attach the invoice's (or credit note's) PDF. */
const ATTACHING_TYPES: ReadonlySet<EmailType> = new Set(["invoice", "receipt", "credit_note"]);

/** What the invoice emails show and attach: the PDF exactly as `GET /invoices/{id}/pdf` serves it, and the hosted link. */
async function invoiceFacts(ctx: ServiceContext, row: EmailRow, type: EmailType): Promise<Facts> {
  const db = await getDb();
  const [invoice] = await db.select().from(invoices).where(and(eq(invoices.accountId, row.accountId), eq(invoices.id, row.invoiceId ?? "")));
  if (!invoice) throw new Error(`The email's invoice '${row.invoiceId}' does not exist.`);
  const locale = emailLocale(invoice.document?.locale);
  const labels = LABELS[locale];
  const rows: [string, string][] = [[labels.number, invoice.number ?? invoice.id]];
  rows.push([labels.amount, money(type === "receipt" ? invoice.totalAmountAtom : invoice.dueAmountAtom, invoice.currency, locale)]);
  if (invoice.dueDate && type === "invoice") rows.push([labels.due, longDate(invoice.dueDate, locale)]);
  if (type === "payment_failed" && invoice.nextPaymentAttempt) rows.push([labels.nextRetry, longDate(invoice.nextPaymentAttempt, locale)]);
  const attachments: RenderedEmail["attachments"] = [];
  if (!ATTACHING_TYPES.has(type)) {
    // payment_failed and payment_action_required: the hosted link, where the customer pays or confirms.
  } else if (type === "credit_note" && row.creditNoteId) {
    const bytes = await creditNotePdf({ ctx, input: { id: row.creditNoteId } });
    attachments.push({ filename: `credit-note-${row.creditNoteId}.pdf`, content: bytes, contentType: "application/pdf" });
  } else if (invoice.document !== null) {
    attachments.push({ filename: `invoice-${invoice.number ?? invoice.id}.pdf`, content: await invoicePdf(await loadInvoice(db, invoice)), contentType: "application/pdf" });
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
  const labels = LABELS[locale];
  const data = event.data;
  const date = (value: unknown) => (typeof value === "string" ? longDate(new Date(value), locale) : "");
  const rows: [string, string][] = [];
  if (type === "trial_ending") rows.push([labels.trialEnds, date(data.trial_end)]);
  if (type === "subscription_cancelled") rows.push([labels.cancelled, date(data.cancelled_at)]);
  if (type === "upcoming_renewal") {
    // The preview is made as of the renewal (`created`): what it would collect then.
    rows.push([labels.renews, date(data.created)]);
    rows.push([labels.amount, money(Number(data.due_amount_atom), String(data.currency), locale)]);
  }
  return { rows, link: null, attachments: [], locale };
}

/**
 * Renders a queued email from what its row names, at send time: the PDF is the invoice's fixed
 * document (the same bytes every time), so a retry sends the same message.
 */
export async function renderEmail(ctx: ServiceContext, row: EmailRow, extra: { link?: string } = {}): Promise<RenderedEmail> {
  const db = await getDb();
  const [account] = await db.select().from(accounts).where(eq(accounts.id, row.accountId));
  if (!account) throw new Error(`The email's account '${row.accountId}' does not exist.`);
  const type = row.type as EmailType;
  const facts: Facts = EVENT_FACT_TYPES.has(type)
    ? await eventFacts(row, type, account.defaultLocale)
    : row.invoiceId
      ? await invoiceFacts(ctx, row, type)
      : { rows: [], link: extra.link ?? row.link ?? null, attachments: [], locale: await customerLocale(row, account.defaultLocale) };
  const words = WORDING[facts.locale][type];
  const seller = senderNameOf(account);
  const support = account.supportEmail;
  const labels = LABELS[facts.locale];
  const brand = brandColorOf(account);
  const html = `<!doctype html><html lang="${facts.locale}"><body style="margin:0;background:#f6f6f9;font-family:Helvetica,Arial,sans-serif;color:#1f2937">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:24px">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="background:#fff;border-radius:8px;border-top:4px solid ${brand}">
<tr><td style="padding:24px"><p style="margin:0;font-weight:bold;color:${brand}">${escapeHtml(seller)}</p>
<h1 style="font-size:20px">${escapeHtml(words.heading)}</h1><p>${escapeHtml(words.body)}</p>
${facts.rows.length ? `<table role="presentation" cellpadding="4">${facts.rows.map(([k, v]) => `<tr><td style="color:#6b7280">${escapeHtml(k)}</td><td><strong>${escapeHtml(v)}</strong></td></tr>`).join("")}</table>` : ""}
${facts.link ? `<p style="margin:24px 0"><a href="${escapeHtml(facts.link)}" style="background:${brand};color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none">${escapeHtml(words.button)}</a></p>` : ""}
${support ? `<p style="color:#6b7280;font-size:13px">${escapeHtml(labels.support)} <a href="mailto:${escapeHtml(support)}">${escapeHtml(support)}</a></p>` : ""}
</td></tr></table></td></tr></table></body></html>`;
  const text = [
    seller,
    "",
    words.heading,
    "",
    words.body,
    "",
    ...facts.rows.map(([k, v]) => `${k}: ${v}`),
    ...(facts.link ? ["", `${words.button}: ${facts.link}`] : []),
    ...(support ? ["", `${labels.support} ${support}`] : []),
  ].join("\n");
  return {
    from: { name: seller.replace(/[\r\n]+/g, " "), address: config().email.from },
    replyTo: account.emailReplyTo ?? support,
    to: row.to,
    subject: row.subject,
    messageId: row.messageId,
    html,
    text,
    attachments: facts.attachments,
  };
}
