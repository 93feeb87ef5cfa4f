import { formatCreditNoteNumber } from "@/lib/credit-notes/numbers";
import { formatInvoiceNumber } from "@/lib/invoices/numbers";
import { currencyExponent } from "@/lib/money";
import { DAY_MS } from "@/lib/time";
import type { EmailType } from "@/lib/email-outbox/types";
import { subjectOf, type EmailLocale } from "@/lib/email-outbox/wording";
import { composeEmail, eventFactRows, EVENT_FACT_TYPES, invoiceFactRows, type EmailBranding, type EmailFacts } from "./compose";

/*
 * The template previews (Settings → Emails, `GET /email-templates/{type}/preview`): every email
 * type with sample facts, composed by the sender's own code (compose.ts) and subject (subjectOf),
 * so what the merchant previews is what their customers get. Pure: nothing is read or written.
 */

/** Where the sample emails' buttons point: example addresses, never a real invoice or portal link. */
export const SAMPLE_LINKS = {
  invoice: "https://example.com/invoice/sample",
  portal: "https://example.com/portal/start/sample",
} as const;

/** The sample documents' sequence numbers: `ACME-0042`, `ACME-CN-0007` with the account's prefix. */
const SAMPLE_INVOICE_SEQUENCE = 42;
const SAMPLE_CREDIT_NOTE_SEQUENCE = 7;

/**
 * The sample amount, 1234.50 in the currency (1234 where it has no minor unit), in atoms: with a
 * thousands group and decimals, so the locale's separators show. Integers only, whatever the exponent.
 */
export function sampleAmountAtom(currency: string): number {
  const exponent = currencyExponent(currency) ?? 2;
  return 1234 * 10 ** exponent + (exponent > 0 ? 5 * 10 ** (exponent - 1) : 0);
}

export type SampleEmailInput = {
  type: EmailType;
  locale: EmailLocale;
  branding: EmailBranding;
  /** The account's invoice prefix in force (lib/account-settings/prefix.ts). */
  invoicePrefix: string;
  currency: string;
  /** The account's time: the sample dates are counted from it. */
  now: Date;
};

/** The sample email of `type`: its subject, HTML and text as the sender would write them. */
export function sampleEmail(input: SampleEmailInput): { subject: string; html: string; text: string } {
  const { type, locale, now, currency } = input;
  const inDays = (days: number) => new Date(now.getTime() + days * DAY_MS);
  const invoiceNumber = formatInvoiceNumber(input.invoicePrefix, SAMPLE_INVOICE_SEQUENCE);
  const amount = sampleAmountAtom(currency);
  let facts: EmailFacts;
  if (EVENT_FACT_TYPES.has(type)) {
    // The fields of the causing event's data that the subscription emails read.
    const data = {
      trial_end: inDays(3).toISOString(),
      cancelled_at: now.toISOString(),
      created: inDays(3).toISOString(),
      due_amount_atom: amount,
      currency,
    };
    facts = { rows: eventFactRows(type, data, locale), link: null, locale };
  } else if (type === "portal_link") {
    facts = { rows: [], link: SAMPLE_LINKS.portal, locale };
  } else if (type === "test") {
    facts = { rows: [], link: null, locale };
  } else {
    const invoice = {
      id: "in_sample",
      number: invoiceNumber,
      currency,
      totalAmountAtom: amount,
      dueAmountAtom: amount,
      // The default `days_until_due` (30) and a dunning retry three days on.
      dueDate: inDays(30),
      nextPaymentAttempt: inDays(3),
    };
    facts = { rows: invoiceFactRows(type, invoice, locale), link: SAMPLE_LINKS.invoice, locale };
  }
  // The subject's number: the credit note's for a credit note, else the invoice's (ignored by the types without one).
  const number = type === "credit_note" ? formatCreditNoteNumber(input.invoicePrefix, SAMPLE_CREDIT_NOTE_SEQUENCE) : invoiceNumber;
  return { subject: subjectOf(locale, type, input.branding.seller, number), ...composeEmail(type, facts, input.branding) };
}
