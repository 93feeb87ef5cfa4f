import type { InvoiceDocument } from "@/lib/invoices/schema";
import { LABELS as INVOICE_LABELS } from "@/lib/invoices/pdf/labels";
import { longDate, money, partyBlocks, partyRows, printable, totalsColumn } from "@/lib/invoices/pdf/render";
import type { Locale } from "@/lib/account-settings/schema";
import type { CreditNoteRow } from "./serialize";
import { pdfDocument } from "@/lib/invoices/pdf/standard-fonts";

/*
 * The credit note as a PDF, with the invoice's renderer's helpers and fonts. Its parties (printed
 * as the invoice prints them: addresses and VAT ids), language and rate names are the credited
 * invoice's document (as issued); its dates are the credit note's, so every render has the same
 * bytes (`pdf_sha256`).
 */

const LABELS = {
  en: {
    creditNote: "Credit note", number: "Credit note number", issued: "Date of issue", invoice: "Invoice", reason: "Reason",
    seller: "From", buyer: "Credit to", description: "Description", quantity: "Qty", tax: "Tax", amount: "Amount",
    subtotal: "Subtotal", discount: "Discount", total: "Total credited", refund: "Refunded", credit: "Credited to balance",
    outOfBand: "Settled out of band", amountDueReduced: "Deducted from the amount due", memo: "Memo", byAmount: "Adjustment",
    inclusive: "incl.",
    reasons: { duplicate: "Duplicate", fraudulent: "Fraudulent", order_change: "Order change", product_unsatisfactory: "Product unsatisfactory" },
  },
  fr: {
    creditNote: "Avoir", number: "Numéro d'avoir", issued: "Date d'émission", invoice: "Facture", reason: "Motif",
    seller: "Émetteur", buyer: "Au bénéfice de", description: "Désignation", quantity: "Qté", tax: "TVA", amount: "Montant",
    subtotal: "Sous-total", discount: "Remise", total: "Total crédité", refund: "Remboursé", credit: "Crédité au solde",
    outOfBand: "Réglé hors service", amountDueReduced: "Déduit du montant dû", memo: "Note", byAmount: "Ajustement",
    inclusive: "incl.",
    reasons: { duplicate: "Doublon", fraudulent: "Fraude", order_change: "Modification de commande", product_unsatisfactory: "Produit non satisfaisant" },
  },
  de: {
    creditNote: "Gutschrift", number: "Gutschriftsnummer", issued: "Ausstellungsdatum", invoice: "Rechnung", reason: "Grund",
    seller: "Von", buyer: "Gutschrift an", description: "Beschreibung", quantity: "Menge", tax: "USt.", amount: "Betrag",
    subtotal: "Zwischensumme", discount: "Rabatt", total: "Gutgeschrieben", refund: "Erstattet", credit: "Dem Guthaben gutgeschrieben",
    outOfBand: "Anderweitig beglichen", amountDueReduced: "Vom fälligen Betrag abgezogen", memo: "Notiz", byAmount: "Anpassung",
    inclusive: "inkl.",
    reasons: { duplicate: "Doppelt", fraudulent: "Betrug", order_change: "Bestelländerung", product_unsatisfactory: "Produkt unbefriedigend" },
  },
} as const satisfies Record<Locale, unknown>;

const MARGIN = 50;
const WIDTH = 595.28 - 2 * MARGIN;

export async function renderCreditNotePdf(note: CreditNoteRow, invoice: { number: string | null; document: InvoiceDocument; reverseCharge: boolean }): Promise<Buffer> {
  const { document } = invoice;
  const locale = document.locale;
  const t = LABELS[locale];
  const pdf = await pdfDocument({
    size: "A4",
    margin: MARGIN,
    compress: true,
    lang: locale,
    info: {
      Title: printable(`${t.creditNote} ${note.number}`),
      Author: printable(document.seller.name),
      Producer: "billing-service",
      Creator: "billing-service",
      CreationDate: note.created,
      ModDate: note.created,
    },
  });
  const chunks: Buffer[] = [];
  pdf.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on("end", () => resolve(Buffer.concat(chunks)));
    pdf.on("error", reject);
  });
  const cur = (atoms: number) => money(atoms, note.currency, locale);
  const text = (value: string, x: number, y: number, options: PDFKit.Mixins.TextOptions = {}) => pdf.text(printable(value), x, y, { lineBreak: false, ...options });

  pdf.font("Helvetica-Bold").fontSize(20);
  // As issued: a later void does not change the document (the same bytes, `pdf_sha256`).
  text(t.creditNote, MARGIN, MARGIN);
  pdf.font("Helvetica").fontSize(10);
  let y = MARGIN + 32;
  for (const [label, value] of [
    [t.number, note.number],
    [t.issued, longDate(note.created, locale)],
    [t.invoice, invoice.number ?? note.invoiceId],
    [t.reason, t.reasons[note.reason]],
    ...(note.memo ? [[t.memo, note.memo]] : []),
  ] as [string, string][]) {
    text(`${label}: ${value}`, MARGIN, y, { width: WIDTH, ellipsis: true });
    y += 14;
  }
  const { seller, buyer } = document;
  // Layout 1 (issued before the parties were printed in full) keeps its bytes: its pdf_sha256 is fixed.
  const parties =
    note.pdfLayout >= 2
      ? partyRows(document, INVOICE_LABELS[locale].vatId)
      : { seller: [seller.name, ...(seller.email ? [seller.email] : [])], buyer: [...(buyer.name ? [buyer.name] : []), buyer.email] };
  y = partyBlocks(pdf, text, y + 12, parties, { seller: t.seller, buyer: t.buyer });

  pdf.font("Helvetica-Bold");
  text(t.description, MARGIN, y);
  text(t.quantity, MARGIN + 260, y, { width: 40, align: "right" });
  text(t.tax, MARGIN + 310, y, { width: 80, align: "right" });
  text(t.amount, MARGIN + 395, y, { width: WIDTH - 395, align: "right" });
  pdf.font("Helvetica");
  y += 18;
  const rateOf = new Map(document.tax_rates.map((rate) => [rate.id, rate]));
  for (const line of note.lines) {
    if (y > 700) {
      pdf.addPage();
      y = MARGIN;
    }
    text(line.description ?? t.byAmount, MARGIN, y, { width: 250, ellipsis: true });
    text(line.quantity === null ? "—" : String(line.quantity), MARGIN + 260, y, { width: 40, align: "right" });
    text(cur(line.tax_amounts.reduce((sum, tax) => sum + tax.amount_atom, 0)), MARGIN + 310, y, { width: 80, align: "right" });
    text(cur(line.amount_atom), MARGIN + 395, y, { width: WIDTH - 395, align: "right" });
    y += 16;
  }
  const totals = totalsColumn(pdf, text, cur, y, { rateOf, reverseCharge: invoice.reverseCharge, locale, tax: t.tax, inclusive: t.inclusive });
  totals.row(t.subtotal, note.subtotalAtom);
  if (note.discountAtom > 0) totals.row(t.discount, -note.discountAtom);
  totals.taxes(note.totalTaxes);
  totals.row(t.total, note.totalAmountAtom, true);
  if (note.type === "pre_payment") totals.row(t.amountDueReduced, note.totalAmountAtom);
  if (note.refundAmountAtom > 0) totals.row(t.refund, note.refundAmountAtom);
  if (note.creditAmountAtom > 0) totals.row(t.credit, note.creditAmountAtom);
  if (note.outOfBandAmountAtom > 0) totals.row(t.outOfBand, note.outOfBandAmountAtom);
  y = totals.y;
  if (document.footer) {
    pdf.font("Helvetica").fontSize(9);
    pdf.text(printable(document.footer), MARGIN, y + 10, { width: WIDTH });
  }
  pdf.end();
  return done;
}
