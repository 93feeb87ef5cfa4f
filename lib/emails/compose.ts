import { longDate, money } from "@/lib/invoices/pdf/render";
import type { EmailType } from "@/lib/email-outbox/types";
import { WORDING, type EmailLocale } from "@/lib/email-outbox/wording";

/*
 * The pure part of an email: from its facts (the rows it shows, its link) and the account's
 * branding to its HTML and plain text. The sender (render.ts, facts read from the email's
 * invoice or event) and the template previews (samples.ts, sample facts) both compose through
 * here, so a preview cannot drift from what is sent.
 */

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The emails' accent colour when the account's seller settings name none (`brand_color`). */
export const DEFAULT_BRAND_COLOR = "#4f46e5";

/** The account's brand colour, only as `#RRGGBB` (the setting's validation; re-checked, as it goes into a style). */
export function brandColorOf(account: { brandColor: string | null }): string {
  return account.brandColor && /^#[0-9a-fA-F]{6}$/.test(account.brandColor) ? account.brandColor : DEFAULT_BRAND_COLOR;
}

/** What an email shows besides its wording: label/value rows and the button's link, in its language. */
export type EmailFacts = { rows: [string, string][]; link: string | null; locale: EmailLocale };

/** Who the email is from, as its body shows it: the sender name, the footer's address, the accent colour (the setting). */
export type EmailBranding = { seller: string; supportEmail: string | null; brandColor: string | null };

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
export const EVENT_FACT_TYPES: ReadonlySet<EmailType> = new Set(["trial_ending", "upcoming_renewal", "subscription_cancelled"]);

/** What the invoice emails say of their invoice (the fields of an invoice row they read). */
export type InvoiceFactsInput = {
  id: string;
  number: string | null;
  currency: string;
  totalAmountAtom: number;
  dueAmountAtom: number;
  dueDate: Date | null;
  nextPaymentAttempt: Date | null;
};

/** The invoice emails' rows: the number, the amount (paid for a receipt, else due), the due date or the next retry. */
export function invoiceFactRows(type: EmailType, invoice: InvoiceFactsInput, locale: EmailLocale): [string, string][] {
  const labels = LABELS[locale];
  const rows: [string, string][] = [[labels.number, invoice.number ?? invoice.id]];
  rows.push([labels.amount, money(type === "receipt" ? invoice.totalAmountAtom : invoice.dueAmountAtom, invoice.currency, locale)]);
  if (invoice.dueDate && type === "invoice") rows.push([labels.due, longDate(invoice.dueDate, locale)]);
  if (type === "payment_failed" && invoice.nextPaymentAttempt) rows.push([labels.nextRetry, longDate(invoice.nextPaymentAttempt, locale)]);
  return rows;
}

/**
 * The subscription emails' rows, from the causing event's data (the subscription as it was then;
 * for the upcoming renewal, the renewal invoice's preview).
 */
export function eventFactRows(type: EmailType, data: Record<string, unknown>, locale: EmailLocale): [string, string][] {
  const labels = LABELS[locale];
  const date = (value: unknown) => (typeof value === "string" ? longDate(new Date(value), locale) : "");
  const rows: [string, string][] = [];
  if (type === "trial_ending") rows.push([labels.trialEnds, date(data.trial_end)]);
  if (type === "subscription_cancelled") rows.push([labels.cancelled, date(data.cancelled_at)]);
  if (type === "upcoming_renewal") {
    // The preview is made as of the renewal (`created`): what it would collect then.
    rows.push([labels.renews, date(data.created)]);
    rows.push([labels.amount, money(Number(data.due_amount_atom), String(data.currency), locale)]);
  }
  return rows;
}

/** The email's HTML and plain-text parts: its type's wording in the facts' language, the facts, the branding. */
export function composeEmail(type: EmailType, facts: EmailFacts, branding: EmailBranding): { html: string; text: string } {
  const words = WORDING[facts.locale][type];
  const { seller, supportEmail: support } = branding;
  const labels = LABELS[facts.locale];
  const brand = brandColorOf(branding);
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
  return { html, text };
}
