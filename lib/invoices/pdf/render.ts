import { createHash } from "node:crypto";
import type { PostalAddress } from "@/db/schema";
import type { TaxAmount } from "@/lib/tax-rates/schema";
import { formatAtoms } from "@/lib/money";
import { dateTimeFormat, numberFormat } from "@/lib/intl";
import type { InvoiceLineRow, InvoiceRow } from "../serialize";
import { tierRangeText } from "@/lib/prices/tiers";
import type { DocumentTierPart, InvoiceDocument } from "../schema";
import { LABELS, type Labels } from "./labels";
import { pdfDocument } from "./standard-fonts";

/*
 * The invoice as a PDF (pdfkit, pure JavaScript; the standard Helvetica fonts, which every PDF
 * reader has). Deterministic: the metadata dates are the invoice's finalization, so the document
 * ID pdfkit derives from them is too, and nothing else varies between renders.
 */

/** Helvetica's WinAnsi encoding has no U+202F (the narrow no-break space fr puts in numbers): a no-break space prints the same. */
export const printable = (text: string) => text.replace(/[\u202f\u2009]/g, "\u00a0");

export function money(atoms: number, currency: string, locale: string): string {
  return printable(formatAtoms(atoms, currency, locale));
}

export function percent(percentageE4: number, locale: string): string {
  return printable(numberFormat(locale, { style: "percent", maximumFractionDigits: 4 }).format(percentageE4 / 1_000_000));
}

export function longDate(date: Date, locale: string): string {
  return dateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" }).format(date);
}

function addressLines(address: PostalAddress | null): string[] {
  if (!address) return [];
  return [address.line1, ...(address.line2 ? [address.line2] : []), `${address.postal_code} ${address.city}`, address.country];
}

const MARGIN = 50;
const WIDTH = 595.28 - 2 * MARGIN;
const BOTTOM = 841.89 - MARGIN;
const COLUMNS = { description: MARGIN, quantity: MARGIN + 240, unit: MARGIN + 280, tax: MARGIN + 360, amount: MARGIN + 415 };

/**
 * The two versions of an invoice's document (docs/invoices-and-tax.md, "As issued, then paid"):
 * `issued` as finalization fixed it (`pdf_sha256`), and once paid, `paid`: the same document with the
 * paid mark, the amount paid and nothing due (`paid_pdf_sha256`, fixed when it was paid). Each
 * renders the same bytes every time.
 */
export type PdfVersion = "issued" | "paid";

export async function renderInvoicePdf(invoice: InvoiceRow, lines: readonly InvoiceLineRow[], document: InvoiceDocument, version: PdfVersion = "issued"): Promise<Buffer> {
  const { locale } = document;
  const t = LABELS[locale];
  const issued = invoice.finalizedAt ?? invoice.created;
  const paidAt = version === "paid" ? invoice.paidAt : null;
  if (version === "paid" && paidAt === null) throw new Error(`Invoice '${invoice.id}' has no paid version: it is not paid.`);
  const pdf = await pdfDocument({
    size: "A4",
    margin: MARGIN,
    compress: true,
    lang: locale,
    info: {
      Title: printable(`${t.invoice} ${invoice.number ?? invoice.id}`),
      Author: printable(document.seller.name),
      Producer: "billing-service",
      Creator: "billing-service",
      CreationDate: issued,
      ModDate: paidAt ?? issued,
    },
  });
  const chunks: Buffer[] = [];
  pdf.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on("end", () => resolve(Buffer.concat(chunks)));
    pdf.on("error", reject);
  });
  const cur = (atoms: number) => money(atoms, invoice.currency, locale);
  const text = (value: string, x: number, y: number, options: PDFKit.Mixins.TextOptions = {}) => pdf.text(printable(value), x, y, { lineBreak: false, ...options });

  pdf.font("Helvetica-Bold").fontSize(20);
  text(t.invoice, MARGIN, MARGIN);
  pdf.font("Helvetica").fontSize(10);
  let y = MARGIN + 32;
  for (const [label, value] of [
    [t.number, invoice.number ?? "—"],
    [t.issued, longDate(issued, locale)],
    ...(invoice.dueDate ? [[t.due, longDate(invoice.dueDate, locale)]] : []),
    ...(document.period ? [[t.period, `${longDate(new Date(document.period.start), locale)} – ${longDate(new Date(document.period.end), locale)}`]] : []),
  ] as [string, string][]) {
    text(`${label}: ${value}`, MARGIN, y);
    y += 14;
  }
  if (paidAt) {
    pdf.font("Helvetica-Bold").fontSize(12).fillColor("#15803d");
    text(`${t.paidOn} ${longDate(paidAt, locale)}`, MARGIN, y + 4);
    pdf.font("Helvetica").fontSize(10).fillColor("black");
    y += 20;
  }

  // Seller and buyer blocks, side by side.
  y = partyBlocks(pdf, text, y + 12, partyRows(document, t.vatId), { seller: t.seller, buyer: t.buyer });

  // The lines.
  const header = () => {
    pdf.font("Helvetica-Bold");
    text(t.description, COLUMNS.description, y);
    text(t.quantity, COLUMNS.quantity, y, { width: 35, align: "right" });
    text(t.unitPrice, COLUMNS.unit, y, { width: 75, align: "right" });
    text(t.tax, COLUMNS.tax, y, { width: 50, align: "right" });
    text(t.amount, COLUMNS.amount, y, { width: WIDTH - (COLUMNS.amount - MARGIN), align: "right" });
    pdf.font("Helvetica");
    y += 18;
  };
  header();
  const rateOf = new Map(document.tax_rates.map((rate) => [rate.id, rate]));
  for (const [index, line] of lines.entries()) {
    const printed: InvoiceDocument["lines"][number] = document.lines[index] ?? { title: line.description ?? "", detail: null };
    // Descriptions wrap: an invoice prints them whole.
    const titleHeight = pdf.heightOfString(printable(printed.title), { width: 235 });
    // A line billing its own period (the invoice's lines bill different ones) prints it under its title.
    const period = printed.period ? `${t.period}: ${longDate(new Date(printed.period.start), locale)} – ${longDate(new Date(printed.period.end), locale)}` : null;
    const tierRows = tierRowsOf(printed.tiers, t, cur);
    const height = titleHeight + (printed.detail ? 12 : 0) + (period ? 12 : 0) + 12 * tierRows.length;
    if (y + height > BOTTOM - 120) {
      pdf.addPage();
      y = MARGIN;
      header();
    }
    pdf.text(printable(printed.title), COLUMNS.description, y, { width: 235 });
    if (printed.detail) {
      pdf.fillColor("#555555");
      text(printed.detail, COLUMNS.description, y + titleHeight, { width: 235, ellipsis: true });
      pdf.fillColor("black");
    }
    if (period) {
      pdf.fillColor("#555555");
      text(period, COLUMNS.description, y + titleHeight + (printed.detail ? 12 : 0), { width: 235, ellipsis: true });
      pdf.fillColor("black");
    }
    text(String(line.quantity), COLUMNS.quantity, y, { width: 35, align: "right" });
    // A tiered line has no single unit price: its tiers follow, each with its own.
    text(printed.tiers ? t.tiered : cur(line.unitAmountAtom), COLUMNS.unit, y, { width: 75, align: "right" });
    const rates = line.taxRateIds.map((id) => rateOf.get(id)).filter((rate) => rate !== undefined);
    text(rates.map((rate) => percent(invoice.reverseCharge ? 0 : rate.percentage_e4, locale)).join(", ") || "—", COLUMNS.tax, y, { width: 50, align: "right" });
    text(cur(line.amountAtom), COLUMNS.amount, y, { width: WIDTH - (COLUMNS.amount - MARGIN), align: "right" });
    let tierY = y + titleHeight + (printed.detail ? 12 : 0) + (period ? 12 : 0);
    pdf.fillColor("#555555");
    for (const row of tierRows) {
      text(row.label, COLUMNS.description + 10, tierY, { width: 225, ellipsis: true });
      if (row.units !== null) text(row.units, COLUMNS.quantity, tierY, { width: 35, align: "right" });
      if (row.unit !== null) text(row.unit, COLUMNS.unit, tierY, { width: 75, align: "right" });
      text(row.amount, COLUMNS.amount, tierY, { width: WIDTH - (COLUMNS.amount - MARGIN), align: "right" });
      tierY += 12;
    }
    pdf.fillColor("black");
    y += height + 4;
  }

  // Totals.
  const totals = totalsColumn(pdf, text, cur, y, { rateOf, reverseCharge: invoice.reverseCharge, locale, tax: t.tax, inclusive: t.inclusive });
  totals.row(t.subtotal, invoice.subtotalAtom);
  if (invoice.discountAtom > 0) totals.row(t.discount, -invoice.discountAtom);
  totals.taxes(invoice.totalTaxes);
  // What credit grants paid (docs/billing.md, "Credit grants"): already out of the total.
  if (invoice.creditsAppliedAtom > 0) totals.row(t.creditsApplied, -invoice.creditsAppliedAtom);
  totals.row(t.total, invoice.totalAmountAtom, true);
  const appliedBalance = (invoice.startingBalanceAtom ?? 0) - (invoice.endingBalanceAtom ?? 0);
  if (appliedBalance !== 0) totals.row(appliedBalance > 0 ? t.appliedCredit : t.appliedDebit, -appliedBalance);
  if (paidAt) {
    // Paid: what was collected (the total less the balance applied and the credit notes issued before the payment), nothing due.
    const credited = invoice.prePaymentCreditNotesAmountAtom;
    if (credited > 0) totals.row(t.creditNotes, -credited);
    totals.row(t.paid, invoice.totalAmountAtom - appliedBalance - credited);
    totals.row(t.amountDue, 0, true);
  } else {
    // As issued: nothing paid yet, the total due less the balance applied then.
    totals.row(t.paid, 0);
    totals.row(t.amountDue, invoice.totalAmountAtom - appliedBalance, true);
  }
  y = totals.y;

  pdf.font("Helvetica").fontSize(9);
  y += 10;
  if (invoice.reverseCharge) {
    pdf.text(printable(t.reverseCharge), MARGIN, y, { width: WIDTH });
    y = pdf.y + 6;
  }
  if (document.footer) pdf.text(printable(document.footer), MARGIN, y, { width: WIDTH });
  pdf.end();
  return done;
}

/**
 * The rows a tiered line prints under it, one per tier that priced its quantity (units, unit price,
 * units × unit price) and one per flat fee it adds: the amounts sum to the line's amount.
 */
function tierRowsOf(tiers: readonly DocumentTierPart[] | undefined, t: Labels, cur: (atoms: number) => string) {
  return (tiers ?? []).flatMap((part) => {
    const range = tierRangeText(part);
    const units = { label: `${t.tierUnits} ${range}`, units: String(part.units), unit: cur(part.unit_amount_atom), amount: cur(part.amount_atom - part.flat_amount_atom) };
    const flat = { label: `${t.tierFlat} (${range})`, units: null, unit: null, amount: cur(part.flat_amount_atom) };
    return part.flat_amount_atom > 0 ? [units, flat] : [units];
  });
}

type PdfText = (value: string, x: number, y: number, options?: PDFKit.Mixins.TextOptions) => unknown;

/** What the seller's and the buyer's blocks print, as issued: names, addresses, VAT ids, the seller's email. */
export function partyRows(document: Pick<InvoiceDocument, "seller" | "buyer">, vatId: string): { seller: string[]; buyer: string[] } {
  const { seller, buyer } = document;
  return {
    seller: [seller.name, ...addressLines(seller.address), ...(seller.tax_id ? [`${vatId}: ${seller.tax_id}`] : []), ...(seller.email ? [seller.email] : [])],
    buyer: [...(buyer.name ? [buyer.name] : []), buyer.email, ...addressLines(buyer.address), ...buyer.tax_ids.map((id) => `${vatId}: ${id}`)],
  };
}

/** The seller's and the buyer's blocks side by side from `start`, under their titles; returns where what follows goes. */
export function partyBlocks(pdf: PDFKit.PDFDocument, text: PdfText, start: number, rows: { seller: string[]; buyer: string[] }, titles: { seller: string; buyer: string }): number {
  const block = (x: number, title: string, lines: string[]) => {
    pdf.font("Helvetica-Bold");
    text(title, x, start);
    pdf.font("Helvetica");
    lines.forEach((line, index) => text(line, x, start + 14 * (index + 1), { width: WIDTH / 2 - 10, ellipsis: true }));
    return lines.length + 1;
  };
  return start + 14 * Math.max(block(MARGIN, titles.seller, rows.seller), block(MARGIN + WIDTH / 2, titles.buyer, rows.buyer)) + 16;
}

/**
 * The totals column of an invoice or a credit note, from `start`: a rule, then one row per `row`
 * (bold for a total), `taxes` naming each rate as issued (0 % under reverse charge); `y` is where
 * what follows goes.
 */
export function totalsColumn(
  pdf: PDFKit.PDFDocument,
  text: PdfText,
  cur: (atoms: number) => string,
  start: number,
  rates: { rateOf: ReadonlyMap<string, InvoiceDocument["tax_rates"][number]>; reverseCharge: boolean; locale: string; tax: string; inclusive: string },
) {
  let y = start + 8;
  pdf.moveTo(MARGIN + WIDTH / 2, y).lineTo(MARGIN + WIDTH, y).stroke();
  y += 8;
  const row = (label: string, atoms: number, bold = false) => {
    pdf.font(bold ? "Helvetica-Bold" : "Helvetica");
    text(label, MARGIN + WIDTH / 2, y, { width: WIDTH / 4 + 20, ellipsis: true });
    text(cur(atoms), MARGIN + (3 * WIDTH) / 4, y, { width: WIDTH / 4, align: "right" });
    y += 15;
  };
  const taxes = (totalTaxes: readonly TaxAmount[]) => {
    for (const tax of totalTaxes) {
      const rate = rates.rateOf.get(tax.tax_rate);
      const name = rate ? `${rate.display_name} ${percent(rates.reverseCharge ? 0 : rate.percentage_e4, rates.locale)}` : rates.tax;
      row(tax.inclusive ? `${name} (${rates.inclusive})` : name, tax.amount_atom);
    }
  };
  return {
    row,
    taxes,
    get y() {
      return y;
    },
  };
}

export function sha256Hex(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
