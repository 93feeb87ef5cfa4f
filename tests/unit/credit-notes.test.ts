import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeCreditNote, type CreditNoteAmounts, type LineCredited } from "@/lib/credit-notes/compute";
import { computeTaxes } from "@/lib/tax-rates/compute";

/* The credit note arithmetic (lib/credit-notes/compute.ts) over random invoices: 10,000 runs each. */

const arbRate = fc.record({ id: fc.constantFrom("txr_a", "txr_b", "txr_c"), percentageE4: fc.integer({ min: 0, max: 1_000_000 }), inclusive: fc.boolean() });
const arbInvoice = fc.record({
  lines: fc.array(
    fc.record({ quantity: fc.integer({ min: 1, max: 50 }), unit: fc.integer({ min: 0, max: 1_000_000 }), rates: fc.uniqueArray(arbRate, { maxLength: 2, selector: (r) => r.id }) }),
    { minLength: 1, maxLength: 8 },
  ),
  discountShare: fc.integer({ min: 0, max: 100 }),
});

type Drawn = { lines: { quantity: number; unit: number; rates: { id: string; percentageE4: number; inclusive: boolean }[] }[]; discountShare: number };

function invoiceOf(drawn: Drawn) {
  const lines = drawn.lines.map((line) => ({ amountAtom: line.quantity * line.unit, rates: line.rates }));
  const subtotal = lines.reduce((sum, line) => sum + line.amountAtom, 0);
  const discount = Math.floor((subtotal * drawn.discountShare) / 100);
  const taxes = computeTaxes(lines, discount, { reverseCharge: false });
  return {
    totalAmountAtom: subtotal - discount + taxes.exclusiveTaxAtom,
    totalTaxes: taxes.totalTaxes,
    lines: drawn.lines.map((line, index) => ({
      id: `il_${index}`,
      description: null,
      quantity: line.quantity,
      amountAtom: line.quantity * line.unit,
      discountAtom: taxes.lines[index]!.discountAtom,
      taxAmounts: taxes.lines[index]!.taxes,
    })),
  };
}

const amounts = (result: ReturnType<typeof computeCreditNote>): CreditNoteAmounts => {
  if (Array.isArray(result)) throw new Error(JSON.stringify(result));
  return result;
};

describe("credit note arithmetic", () => {
  it("crediting every line whole credits exactly the invoice's total and taxes", () => {
    fc.assert(
      fc.property(arbInvoice, (drawn) => {
        const invoice = invoiceOf(drawn);
        const note = amounts(computeCreditNote(invoice, { lines: invoice.lines.map((line) => ({ invoice_line: line.id, quantity: line.quantity })) }));
        expect(note.totalAmountAtom).toBe(invoice.totalAmountAtom);
        expect(note.taxAtom).toBe(invoice.totalTaxes.reduce((sum, tax) => sum + tax.amount_atom, 0));
      }),
      { numRuns: 10_000 },
    );
  });

  it("a partial credit by lines: each line at most its own total, the sums are the lines' sums, nothing negative", () => {
    fc.assert(
      fc.property(arbInvoice, fc.array(fc.nat(), { minLength: 8, maxLength: 8 }), (drawn, picks) => {
        const invoice = invoiceOf(drawn);
        const wanted = invoice.lines.map((line, index) => ({ invoice_line: line.id, quantity: 1 + (picks[index]! % line.quantity) }));
        const note = amounts(computeCreditNote(invoice, { lines: wanted }));
        expect(note.totalAmountAtom).toBeLessThanOrEqual(invoice.totalAmountAtom);
        expect(note.totalAmountAtom).toBe(note.lines.reduce((sum, line) => sum + line.total_amount_atom, 0));
        expect(note.taxAtom).toBe(note.lines.flatMap((line) => line.tax_amounts).reduce((sum, tax) => sum + tax.amount_atom, 0));
        for (const line of note.lines) expect(Math.min(line.amount_atom, line.discount_atom, line.total_amount_atom)).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 10_000 },
    );
  });

  it("a credit by amount credits exactly that amount, its taxes in proportion and never more than the invoice's", () => {
    fc.assert(
      fc.property(arbInvoice, fc.double({ min: 0, max: 1, noNaN: true }), (drawn, share) => {
        const invoice = invoiceOf(drawn);
        fc.pre(invoice.totalAmountAtom > 0);
        const amount = Math.max(1, Math.floor(invoice.totalAmountAtom * share));
        const note = amounts(computeCreditNote(invoice, { amount_atom: amount }));
        expect(note.totalAmountAtom).toBe(amount);
        for (const [index, tax] of note.totalTaxes.entries()) expect(tax.amount_atom).toBeLessThanOrEqual(invoice.totalTaxes[index]!.amount_atom);
        expect(note.subtotalAtom).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 10_000 },
    );
  });

  it("refuses more than a line has, and lines with an amount", () => {
    const invoice = invoiceOf({ lines: [{ quantity: 2, unit: 100, rates: [] }], discountShare: 0 });
    expect(computeCreditNote(invoice, { lines: [{ invoice_line: "il_0", quantity: 3 }] })).toEqual([{ field: "lines.0.quantity", message: expect.any(String) }]);
    expect(computeCreditNote(invoice, { lines: [{ invoice_line: "il_0", amount_atom: 201 }] })).toEqual([{ field: "lines.0.amount_atom", message: expect.any(String) }]);
    expect(computeCreditNote(invoice, { amount_atom: 201 })).toEqual([{ field: "amount_atom", message: expect.any(String) }]);
    expect(computeCreditNote(invoice, { amount_atom: 1, lines: [{ invoice_line: "il_0", quantity: 1 }] })).toEqual([{ field: "amount_atom", message: expect.any(String) }]);
  });

  it("unit by unit over successive credit notes: exactly each line's total and taxes, never more (rule 5)", () => {
    fc.assert(
      fc.property(arbInvoice, (drawn) => {
        const invoice = invoiceOf(drawn);
        const credited = new Map<string, LineCredited>();
        let total = 0;
        let tax = 0;
        for (const line of invoice.lines) {
          for (let unit = 0; unit < line.quantity; unit++) {
            const result = computeCreditNote(invoice, { lines: [{ invoice_line: line.id, quantity: 1 }] }, credited);
            const note = amounts(result);
            total += note.totalAmountAtom;
            tax += note.taxAtom;
            const so = credited.get(line.id) ?? { amountAtom: 0, quantity: 0 };
            credited.set(line.id, { amountAtom: so.amountAtom + note.subtotalAtom, quantity: so.quantity + 1 });
          }
          // Nothing is left of a wholly credited line, by units or by amount.
          expect(computeCreditNote(invoice, { lines: [{ invoice_line: line.id, quantity: 1 }] }, credited)).toEqual([{ field: "lines.0.quantity", message: expect.any(String) }]);
          expect(computeCreditNote(invoice, { lines: [{ invoice_line: line.id, amount_atom: 1 }] }, credited)).toEqual([{ field: "lines.0.amount_atom", message: expect.any(String) }]);
        }
        expect(total).toBe(invoice.totalAmountAtom);
        expect(tax).toBe(invoice.totalTaxes.reduce((sum, rate) => sum + rate.amount_atom, 0));
      }),
      { numRuns: 2_000 },
    );
  });

  it("2 × 250 at 7 % exclusive: one unit then the other credits 268 + 267 = 535, the line's total", () => {
    const invoice = invoiceOf({ lines: [{ quantity: 2, unit: 250, rates: [{ id: "txr_a", percentageE4: 70_000, inclusive: false }] }], discountShare: 0 });
    expect(invoice.totalAmountAtom).toBe(535);
    const first = amounts(computeCreditNote(invoice, { lines: [{ invoice_line: "il_0", quantity: 1 }] }));
    expect(first.totalAmountAtom).toBe(268);
    const second = amounts(computeCreditNote(invoice, { lines: [{ invoice_line: "il_0", quantity: 1 }] }, new Map([["il_0", { amountAtom: 250, quantity: 1 }]])));
    expect(second).toMatchObject({ subtotalAtom: 250, taxAtom: 17, totalAmountAtom: 267 });
  });

  it("refuses a line named twice in one request, naming the second", () => {
    const invoice = invoiceOf({ lines: [{ quantity: 2, unit: 100, rates: [] }], discountShare: 0 });
    expect(computeCreditNote(invoice, { lines: [{ invoice_line: "il_0", quantity: 1 }, { invoice_line: "il_0", amount_atom: 1 }] })).toEqual([
      { field: "lines.1.invoice_line", message: expect.stringMatching(/lines\.0/) },
    ]);
  });
});
