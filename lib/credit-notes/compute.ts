import type { CreditNoteLineRecord } from "@/db/schema";
import type { FieldError } from "@/lib/errors";
import { divideHalfEven } from "@/lib/tax-rates/compute";
import type { TaxAmount } from "@/lib/tax-rates/schema";
import type { CreditNoteCreate } from "./schema";

/*
 * A credit note's amounts, in integer atoms (pure: no database). A credited part of a line takes
 * the same part of the line's discount share and of each of its taxes, each rounded half to even
 * on its own (as the invoice rounds per line and rate). A credit note by amount credits a
 * tax-inclusive part of the total and the same part of each rate's tax.
 */

type InvoiceTerms = {
  totalAmountAtom: number;
  totalTaxes: readonly TaxAmount[];
  lines: readonly { id: string; description: string | null; quantity: number; amountAtom: number; discountAtom: number; taxAmounts: readonly TaxAmount[] }[];
};

export type CreditNoteAmounts = {
  lines: CreditNoteLineRecord[];
  subtotalAtom: number;
  discountAtom: number;
  taxAtom: number;
  totalTaxes: TaxAmount[];
  totalAmountAtom: number;
};

/** part × amount / whole, half to even (0 ≤ part ≤ whole, whole > 0). */
const proportion = (amount: number, part: number, whole: number) => Number(divideHalfEven(BigInt(amount) * BigInt(part), BigInt(whole)));

function sumTaxes(lines: readonly { tax_amounts: readonly TaxAmount[] }[]): TaxAmount[] {
  const byRate = new Map<string, TaxAmount>();
  for (const tax of lines.flatMap((line) => line.tax_amounts)) {
    const sum = byRate.get(tax.tax_rate);
    byRate.set(
      tax.tax_rate,
      sum ? { ...sum, amount_atom: sum.amount_atom + tax.amount_atom, taxable_amount_atom: sum.taxable_amount_atom + tax.taxable_amount_atom } : { ...tax },
    );
  }
  return [...byRate.values()];
}

function creditLine(line: InvoiceTerms["lines"][number], part: number, quantity: number | null): CreditNoteLineRecord {
  const amount = line.amountAtom === 0 ? 0 : part;
  const scale = (value: number) => (line.amountAtom === 0 ? 0 : proportion(value, amount, line.amountAtom));
  const taxes = line.taxAmounts.map((tax) => ({ ...tax, amount_atom: scale(tax.amount_atom), taxable_amount_atom: scale(tax.taxable_amount_atom) }));
  const discount = scale(line.discountAtom);
  const exclusive = taxes.filter((tax) => !tax.inclusive).reduce((sum, tax) => sum + tax.amount_atom, 0);
  return {
    invoice_line: line.id,
    description: line.description,
    quantity,
    amount_atom: amount,
    discount_atom: discount,
    tax_amounts: taxes,
    total_amount_atom: amount - discount + exclusive,
  };
}

/** The amounts, or the field errors (422) of lines that are not the invoice's or credit more than they bill. */
export function computeCreditNote(invoice: InvoiceTerms, input: Pick<CreditNoteCreate, "lines" | "amount_atom" | "refund_amount_atom" | "credit_amount_atom" | "out_of_band_amount_atom">): CreditNoteAmounts | FieldError[] {
  if (input.lines && input.amount_atom !== undefined) return [{ field: "amount_atom", message: "Give either lines or amount_atom, not both." }];
  if (input.lines) {
    const errors: FieldError[] = [];
    const lines: CreditNoteLineRecord[] = [];
    for (const [index, wanted] of input.lines.entries()) {
      const line = invoice.lines.find((candidate) => candidate.id === wanted.invoice_line);
      if (!line) {
        errors.push({ field: `lines.${index}.invoice_line`, message: `No such line of the invoice: '${wanted.invoice_line}'.` });
        continue;
      }
      if (wanted.quantity !== undefined) {
        if (wanted.quantity > line.quantity) errors.push({ field: `lines.${index}.quantity`, message: `Must be at most the line's quantity (${line.quantity}).` });
        else lines.push(creditLine(line, proportion(line.amountAtom, wanted.quantity, line.quantity), wanted.quantity));
      } else if (wanted.amount_atom !== undefined) {
        if (wanted.amount_atom > line.amountAtom) errors.push({ field: `lines.${index}.amount_atom`, message: `Must be at most the line's amount (${line.amountAtom}).` });
        else lines.push(creditLine(line, wanted.amount_atom, null));
      }
    }
    if (errors.length > 0) return errors;
    const totalTaxes = sumTaxes(lines);
    const sum = (pick: (line: CreditNoteLineRecord) => number) => lines.reduce((total, line) => total + pick(line), 0);
    return {
      lines,
      subtotalAtom: sum((line) => line.amount_atom),
      discountAtom: sum((line) => line.discount_atom),
      taxAtom: totalTaxes.reduce((total, tax) => total + tax.amount_atom, 0),
      totalTaxes,
      totalAmountAtom: sum((line) => line.total_amount_atom),
    };
  }
  const split = (input.refund_amount_atom ?? 0) + (input.credit_amount_atom ?? 0) + (input.out_of_band_amount_atom ?? 0);
  const amount = input.amount_atom ?? split;
  if (amount === 0) return [{ field: "amount_atom", message: "Give lines, amount_atom, or the refund/credit/out-of-band amounts of a paid invoice." }];
  if (invoice.totalAmountAtom === 0 || amount > invoice.totalAmountAtom) {
    return [{ field: "amount_atom", message: `Must be at most the invoice's total (${invoice.totalAmountAtom}).` }];
  }
  const totalTaxes = invoice.totalTaxes.map((tax) => ({
    ...tax,
    amount_atom: proportion(tax.amount_atom, amount, invoice.totalAmountAtom),
    taxable_amount_atom: proportion(tax.taxable_amount_atom, amount, invoice.totalAmountAtom),
  }));
  const exclusive = totalTaxes.filter((tax) => !tax.inclusive).reduce((sum, tax) => sum + tax.amount_atom, 0);
  const line: CreditNoteLineRecord = {
    invoice_line: null,
    description: null,
    quantity: null,
    amount_atom: amount - exclusive,
    discount_atom: 0,
    tax_amounts: totalTaxes,
    total_amount_atom: amount,
  };
  return {
    lines: [line],
    subtotalAtom: amount - exclusive,
    discountAtom: 0,
    taxAtom: totalTaxes.reduce((sum, tax) => sum + tax.amount_atom, 0),
    totalTaxes,
    totalAmountAtom: amount,
  };
}
