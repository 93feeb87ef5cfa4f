import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { DateTime } from "@/lib/schemas";
import { TaxAmountSchema } from "@/lib/tax-rates/schema";
import { CREDIT_NOTE_REASONS, CREDIT_NOTE_STATUSES, CREDIT_NOTE_TYPES } from "./statuses";

export { CREDIT_NOTE_REASONS, CREDIT_NOTE_STATUSES, CREDIT_NOTE_TYPES };

const Atoms = z
  .int({ error: "Must be an integer number of atomic units (cents for usd), up to 2^53 - 1." })
  .min(0, "Must be 0 or more.")
  .max(Number.MAX_SAFE_INTEGER);

const PositiveAtoms = Atoms.min(1, "Must be 1 or more.");

export const CreditNoteLineInput = z
  .strictObject({
    invoice_line: z.string().min(1).meta({ description: "A line (`il_…`) of the invoice." }),
    quantity: z.int({ error: "Must be a whole number of 1 or more." }).min(1, "Must be 1 or more.").max(2_147_483_647).optional().meta({
      description: "Credit this many of the line's units: line amount × quantity / line quantity (half to even).",
    }),
    amount_atom: PositiveAtoms.optional().meta({ description: "Credit this part of the line's amount (before its discount share and tax)." }),
  })
  .superRefine((line, ctx) => {
    if (line.quantity === undefined && line.amount_atom === undefined) {
      ctx.addIssue({ code: "custom", path: ["quantity"], message: "Give quantity or amount_atom." });
    }
    if (line.quantity !== undefined && line.amount_atom !== undefined) {
      ctx.addIssue({ code: "custom", path: ["amount_atom"], message: "Give either quantity or amount_atom, not both." });
    }
  })
  .meta({ id: "CreditNoteLineInput", example: { invoice_line: "il_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5", quantity: 1 } });

export const CreditNoteCreateInput = z
  .strictObject({
    invoice: z.string().min(1).meta({ description: "The invoice (`in_…`) to credit: open or uncollectible (pre-payment) or paid (post-payment)." }),
    lines: z.array(CreditNoteLineInput).min(1).max(100).optional().meta({
      description: "The invoice lines to credit; each credits its share of the line's discount and taxes. Excludes `amount_atom`.",
    }),
    amount_atom: PositiveAtoms.optional().meta({
      description:
        "A tax-inclusive amount of the invoice's total to credit, without naming lines; the taxes are credited in proportion. Excludes `lines`. Without either, the sum of the three amounts below.",
    }),
    reason: z.enum(CREDIT_NOTE_REASONS, { error: `reason must be one of ${CREDIT_NOTE_REASONS.join(", ")}.` }),
    memo: z.string().max(5000).optional(),
    refund_amount_atom: Atoms.optional().meta({ description: "Post-payment: refunded to the invoice's payment (a real refund, `refund.*` events)." }),
    credit_amount_atom: Atoms.optional().meta({ description: "Post-payment: credited to the customer's balance in the invoice's currency." }),
    out_of_band_amount_atom: Atoms.optional().meta({ description: "Post-payment: settled outside the service; recorded only." }),
  })
  .meta({ id: "CreditNoteCreateInput", example: { invoice: "in_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5", amount_atom: 1000, reason: "order_change" } });

export const CreditNoteLine = z
  .object({
    invoice_line: z.string().nullable().meta({ description: "The credited invoice line; null for a credit note by amount." }),
    description: z.string().nullable(),
    quantity: z.number().int().nullable(),
    amount_atom: z.number().int().meta({ description: "The credited part of the line's amount (before discount and tax)." }),
    discount_atom: z.number().int().meta({ description: "The credited part of the line's discount share." }),
    tax_amounts: z.array(TaxAmountSchema),
    total_amount_atom: z.number().int().meta({ description: "amount − discount + exclusive taxes." }),
  })
  .meta({ id: "CreditNoteLine" });

export const CreditNote = z
  .object({
    id: z.string().meta({ example: "cn_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("credit_note"),
    number: z.string().meta({ description: "`{invoice_prefix}-CN-{sequence}` (at least 4 digits), gapless per account.", example: "ACME-CN-0001" }),
    invoice: z.string(),
    customer: z.string(),
    currency: z.string(),
    status: z.enum(CREDIT_NOTE_STATUSES),
    type: z.enum(CREDIT_NOTE_TYPES).meta({ description: "`pre_payment`: issued on an open invoice, lowered its amount due; `post_payment`: on a paid invoice." }),
    reason: z.enum(CREDIT_NOTE_REASONS),
    memo: z.string().nullable(),
    lines: z.array(CreditNoteLine),
    subtotal_atom: z.number().int(),
    discount_atom: z.number().int(),
    tax_atom: z.number().int(),
    total_taxes: z.array(TaxAmountSchema),
    total_amount_atom: z.number().int().meta({ description: "What the credit note credits: subtotal − discount + exclusive taxes." }),
    refund_amount_atom: z.number().int(),
    credit_amount_atom: z.number().int(),
    out_of_band_amount_atom: z.number().int(),
    refunds: z.array(z.string()).meta({ description: "The refunds (`re_…`) it made of the invoice's payments." }),
    customer_balance_transaction: z.string().nullable(),
    pdf: z.string().nullable().meta({ description: "The PDF (`getCreditNotePdf`, secret token); null on a preview." }),
    pdf_sha256: z.string().nullable(),
    voided_at: DateTime.nullable(),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "CreditNote" });

export const CreditNoteList = listEnvelopeSchema(CreditNote, "CreditNoteList");

export const CreditNoteListQuery = PaginationQuery.extend({
  invoice: z.string().min(1).optional().meta({ description: "Only credit notes of this invoice." }),
  customer: z.string().min(1).optional().meta({ description: "Only credit notes of this customer." }),
});

export type CreditNoteObject = z.input<typeof CreditNote>;
export type CreditNoteCreate = z.output<typeof CreditNoteCreateInput>;
