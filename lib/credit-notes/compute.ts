import type { CreditNoteLineRecord } from "@/db/schema";
import type { FieldError } from "@/lib/errors";
import { divideHalfEven, sumTaxesByRate } from "@/lib/tax-rates/compute";
import type { TaxAmount } from "@/lib/tax-rates/schema";
import type { CreditNoteCreate } from "./schema";

/*
 * A credit note's amounts, in integer atoms (pure: no database). A credit note by lines credits
 * each line at most once per request, and over all the invoice's issued credit notes at most the
 * line's amount (so at most its discount share and its taxes: rule 5 of issue 42). The discount
 * share and each tax of a credited part are cumulative: what the line's credited amount so far plus
 * this part takes, less what the amount so far took (each rounded half to even, as the invoice
 * rounds per line and rate), so crediting the last unit credits exactly what is left of the line's
 * tax. A credit note by amount credits a tax-inclusive part of the total and the same part of each
 * rate's tax.
 */

type InvoiceTerms = {
  totalAmountAtom: number;
  totalTaxes: readonly TaxAmount[];
  lines: readonly { id: string; description: string | null; quantity: number; amountAtom: number; discountAtom: number; taxAmounts: readonly TaxAmount[] }[];
};

/** What the invoice's issued (non-void) credit notes by lines have credited on one line so far. */
export type LineCredited = { amountAtom: number; quantity: number };

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

const sumTaxes = (lines: readonly { tax_amounts: readonly TaxAmount[] }[]): TaxAmount[] => sumTaxesByRate(lines.flatMap((line) => line.tax_amounts));

/**
 * The part of a line's amount `amount` credits when `before` of it is credited already: the
 * cumulative share of the discount and of each tax (share at before + amount − share at before).
 */
function creditLine(line: InvoiceTerms["lines"][number], before: number, amount: number, quantity: number | null): CreditNoteLineRecord {
  const shareOf = (value: number) =>
    line.amountAtom === 0 ? 0 : proportion(value, before + amount, line.amountAtom) - proportion(value, before, line.amountAtom);
  const taxes = line.taxAmounts.map((tax) => ({ ...tax, amount_atom: shareOf(tax.amount_atom), taxable_amount_atom: shareOf(tax.taxable_amount_atom) }));
  const discount = shareOf(line.discountAtom);
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

const NOTHING_CREDITED: LineCredited = { amountAtom: 0, quantity: 0 };

/** One wanted line: its credited record, or the field error naming `lines.{index}…`. */
function wantedLine(
  line: InvoiceTerms["lines"][number],
  wanted: NonNullable<CreditNoteCreate["lines"]>[number],
  index: number,
  credited: LineCredited,
): CreditNoteLineRecord | FieldError {
  const amountLeft = line.amountAtom - credited.amountAtom;
  if (wanted.quantity !== undefined) {
    const quantityLeft = line.quantity - credited.quantity;
    if (wanted.quantity > quantityLeft) {
      return { field: `lines.${index}.quantity`, message: `Must be at most the line's quantity not yet credited (${quantityLeft} of ${line.quantity}).` };
    }
    // Units by units: the amount is cumulative too, so the line's last unit credits what is left of it.
    const amount = line.amountAtom === 0 ? 0 : proportion(line.amountAtom, credited.quantity + wanted.quantity, line.quantity) - proportion(line.amountAtom, credited.quantity, line.quantity);
    if (amount > amountLeft) {
      return { field: `lines.${index}.quantity`, message: `Those units' amount (${amount}) exceeds what is left to credit on the line (${amountLeft}).` };
    }
    return creditLine(line, credited.amountAtom, amount, wanted.quantity);
  }
  const amount = wanted.amount_atom ?? 0;
  if (amount > amountLeft) {
    return { field: `lines.${index}.amount_atom`, message: `Must be at most the line's amount not yet credited (${amountLeft} of ${line.amountAtom}).` };
  }
  return creditLine(line, credited.amountAtom, amount, null);
}

/**
 * The amounts, or the field errors (422) of lines that are not the invoice's, are named twice, or
 * credit more than is left of them after `credited` (per invoice line id: the issued credit notes).
 */
export function computeCreditNote(
  invoice: InvoiceTerms,
  input: Pick<CreditNoteCreate, "lines" | "amount_atom" | "refund_amount_atom" | "credit_amount_atom" | "out_of_band_amount_atom">,
  credited: ReadonlyMap<string, LineCredited> = new Map(),
): CreditNoteAmounts | FieldError[] {
  if (input.lines && input.amount_atom !== undefined) return [{ field: "amount_atom", message: "Give either lines or amount_atom, not both." }];
  if (input.lines) {
    const errors: FieldError[] = [];
    const lines: CreditNoteLineRecord[] = [];
    const named = new Map<string, number>();
    for (const [index, wanted] of input.lines.entries()) {
      const line = invoice.lines.find((candidate) => candidate.id === wanted.invoice_line);
      if (!line) {
        errors.push({ field: `lines.${index}.invoice_line`, message: `No such line of the invoice: '${wanted.invoice_line}'.` });
        continue;
      }
      const first = named.get(line.id);
      if (first !== undefined) {
        errors.push({ field: `lines.${index}.invoice_line`, message: `Line '${line.id}' is already credited by lines.${first}; name each line once.` });
        continue;
      }
      named.set(line.id, index);
      const result = wantedLine(line, wanted, index, credited.get(line.id) ?? NOTHING_CREDITED);
      if ("field" in result) errors.push(result);
      else lines.push(result);
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
