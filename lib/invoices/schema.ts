import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { Currency, DateTime, Metadata } from "@/lib/schemas";
import type { Locale, PostalAddress } from "@/lib/account-settings/schema";
import { TaxAmountSchema, TaxRateIds } from "@/lib/tax-rates/schema";
import { INVOICE_STATUSES, type InvoiceStatus } from "./statuses";

export { INVOICE_STATUSES, type InvoiceStatus };


const Atoms = z
  .int({ error: "Must be an integer number of atomic units (cents for usd), up to 2^53 - 1." })
  .min(0, "Must be 0 or more.")
  .max(Number.MAX_SAFE_INTEGER);

/** The quantity column is a 32-bit integer. */
const Quantity = z
  .int({ error: "Must be a whole number from 1 to 2147483647." })
  .min(1, "Must be 1 or more.")
  .max(2_147_483_647, "Must be at most 2147483647.")
  .meta({ description: "Default 1." });

const LineDescription = z.string().min(1).max(5000);

/**
 * A line bills either a price of the account (its unit amount, same currency as the invoice) or a
 * custom amount with a description. Missing both is a missing `price` (400); both is a 422.
 */
export const InvoiceLineInput = z
  .strictObject({
    price: z.string().min(1).optional().meta({ description: "An active price (`price_…`) in the invoice's currency." }),
    quantity: Quantity.optional(),
    unit_amount_atom: Atoms.optional().meta({ description: "A custom unit amount; requires `description`, excludes `price`." }),
    description: LineDescription.optional(),
    tax_rates: TaxRateIds.optional().meta({
      description: "Active tax rates (`txr_…`) of the account for this line. None: the customer's `default_tax_rate`, else the account's, applies at finalization.",
    }),
  })
  .superRefine((line, ctx) => {
    const hasPrice = line.price !== undefined;
    const hasAmount = line.unit_amount_atom !== undefined;
    // An issue on an absent field is a 400 "missing", on a present one a 422 (lib/api/validation).
    if (!hasPrice && !hasAmount) {
      ctx.addIssue({ code: "custom", path: ["price"], message: "Give price, or unit_amount_atom with description." });
    }
    if (hasPrice && hasAmount) {
      ctx.addIssue({ code: "custom", path: ["unit_amount_atom"], message: "Give either price or unit_amount_atom, not both." });
    }
    if (hasAmount && !hasPrice && line.description === undefined) {
      ctx.addIssue({ code: "custom", path: ["description"], message: "Required with unit_amount_atom." });
    }
  })
  // A whole example: the fields depend on each other (the reference's curl examples use it).
  .meta({ id: "InvoiceLineInput", example: { unit_amount_atom: 2500, description: "Setup fee" } });

export const MAX_LINES = 100;

/** Stripe's collection methods: charged with a saved method, or emailed for the customer to pay. */
export const COLLECTION_METHODS = ["charge_automatically", "send_invoice"] as const;
export type CollectionMethod = (typeof COLLECTION_METHODS)[number];
export const DEFAULT_DAYS_UNTIL_DUE = 30;
export const MAX_DAYS_UNTIL_DUE = 730;

export const CollectionMethodSchema = z.enum(COLLECTION_METHODS, { error: `Must be one of ${COLLECTION_METHODS.join(", ")}.` }).meta({
  description:
    "`charge_automatically` (default): collected with the subscription's `default_payment_method`, if any. `send_invoice`: emailed to the customer at finalization (PDF and hosted link) and never charged automatically; due `days_until_due` days after finalization.",
});

export const DaysUntilDue = z
  .int({ error: `Must be a whole number of days from 0 to ${MAX_DAYS_UNTIL_DUE}.` })
  .min(0, `Must be from 0 to ${MAX_DAYS_UNTIL_DUE}.`)
  .max(MAX_DAYS_UNTIL_DUE, `Must be from 0 to ${MAX_DAYS_UNTIL_DUE}.`)
  .meta({ description: `\`send_invoice\` only (422 otherwise): the invoice is due this many days after finalization. Default ${DEFAULT_DAYS_UNTIL_DUE}.` });

/**
 * Stripe's rule: `days_until_due` belongs to `send_invoice` (a 422 with `charge_automatically` or
 * without a collection method). Called by the invoice and subscription inputs' refinements.
 */
export function refineDaysUntilDue(
  input: { collection_method?: CollectionMethod; days_until_due?: number | null },
  issues: z.RefinementCtx,
  collectionMethod: CollectionMethod | undefined = input.collection_method,
): void {
  if (input.days_until_due !== undefined && input.days_until_due !== null && collectionMethod !== "send_invoice") {
    issues.addIssue({ code: "custom", path: ["days_until_due"], message: "Only with collection_method: send_invoice." });
  }
}

export const InvoiceCreateInput = z
  .strictObject({
    customer: z.string().min(1).meta({ description: "The customer (`cus_…`) of this account to bill." }),
    currency: Currency,
    description: z.string().max(5000).nullable().optional(),
    due_date: DateTime.optional(),
    collection_method: CollectionMethodSchema.optional(),
    days_until_due: DaysUntilDue.optional(),
    metadata: Metadata.optional(),
    lines: z.array(InvoiceLineInput).max(MAX_LINES, `At most ${MAX_LINES} lines.`).optional(),
  })
  .superRefine((input, issues) => {
    refineDaysUntilDue(input, issues);
    if (input.collection_method === "send_invoice" && input.due_date !== undefined && input.days_until_due !== undefined) {
      issues.addIssue({ code: "custom", path: ["days_until_due"], message: "Give due_date or days_until_due, not both." });
    }
  })
  .meta({ id: "InvoiceCreateInput" });

export const InvoicePayInput = z
  .strictObject({
    paid_out_of_band: z.boolean().optional().meta({
      description:
        "true: the payment happened outside the service (cash, bank transfer). Give exactly one of this (true) and `payment_method`.",
    }),
    payment_method: z.string().min(1).optional().meta({
      description:
        "A sandbox payment method (`pm_sandbox_…`, sandbox accounts only; live accounts answer 422): a payment intent for the due amount is created and confirmed with it in the same transaction.",
      example: "pm_sandbox_succeeds",
    }),
  })
  .meta({ id: "InvoicePayInput" });

export const InvoiceLine = z
  .object({
    id: z.string().meta({ example: "il_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    price: z.string().nullable(),
    description: z.string().nullable(),
    quantity: z.number().int().meta({
      description:
        "The units billed. A metered price's line (made by a subscription's renewal or cancellation): the meter's aggregated usage over the range its description names, 0 or more, up to 2^53 - 1.",
    }),
    unit_amount_atom: z.number().int().meta({ description: "The price per unit; 0 for a tiered price (its amount is the tiers', not quantity × a unit amount)." }),
    amount_atom: z.number().int().meta({ description: "quantity × unit_amount_atom; for a tiered price, its tiers' amount for the quantity (then `unit_amount_atom` is 0)." }),
    tax_rates: z.array(z.string()).meta({ description: "The line's tax rates; on a finalized invoice, the ones that applied (the defaults included)." }),
    discount_atom: z.number().int().meta({ description: "The line's share of the invoice's discount (set at finalization)." }),
    tax_amounts: z.array(TaxAmountSchema).meta({ description: "The line's tax per rate (set at finalization; empty on drafts)." }),
  })
  .meta({ id: "InvoiceLine" });

export const Invoice = z
  .object({
    id: z.string().meta({ example: "in_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("invoice"),
    customer: z.string(),
    subscription: z.string().nullable(),
    status: z.enum(INVOICE_STATUSES),
    number: z.string().nullable().meta({
      description:
        "`{invoice_prefix}-{sequence}` (at least 4 digits), given at finalization: gapless and unique per account (a sandbox has its own sequence); null on drafts. A voided invoice keeps its number.",
      example: "ACME-0001",
    }),
    currency: z.string(),
    customer_name: z.string().nullable().meta({ description: "The customer's name as printed on the invoice (fixed at finalization); null on drafts." }),
    customer_email: z.string().nullable().meta({ description: "The customer's email as printed on the invoice (fixed at finalization); null on drafts." }),
    pdf_sha256: z.string().nullable().meta({
      description:
        "SHA-256 (hex) of the PDF as issued, fixed at finalization: every download of its issued version (`invoice_pdf`, before the invoice is paid; `invoice_pdf?version=issued` always) has exactly these bytes. Null on drafts.",
    }),
    paid_pdf_sha256: z.string().nullable().meta({
      description:
        "SHA-256 (hex) of the PDF's paid version (the issued document with a \"Paid on\" mark, the amount paid and nothing due), fixed in the transaction that marked the invoice paid and carried by `invoice.paid`: once paid, `invoice_pdf` serves exactly these bytes. Null until paid (and for invoices paid before paid versions existed, whose `invoice_pdf` stays the issued one).",
    }),
    invoice_pdf: z.string().nullable().meta({ description: "The PDF (the `getInvoicePdf` operation, with a secret token); null on drafts." }),
    hosted_invoice_url: z.string().nullable().meta({
      description: "The hosted invoice page: a capability URL anyone holding it can open without signing in (view, download the PDF, pay an open invoice). Null on drafts.",
    }),
    subtotal_atom: z.number().int().meta({ description: "Σ line amounts." }),
    discount_atom: z.number().int().meta({ description: "Set at finalization from the customer's discount." }),
    tax_atom: z.number().int().meta({ description: "Σ of the lines' taxes, inclusive (contained in the subtotal) and exclusive (added); set at finalization." }),
    total_taxes: z.array(TaxAmountSchema).meta({ description: "The tax per rate, summed over the lines." }),
    reverse_charge: z.boolean().meta({
      description: "true: a B2B customer with a valid EU VAT id in another EU country than the seller; every rate applies at 0 % and the invoice carries the reverse-charge note.",
    }),
    total_credits_applied_atom: z.number().int().meta({
      description: "What the customer's credit grants paid at finalization (Σ of `credits_applied`), before the balance; 0 on drafts (the previews show what finalization would apply).",
    }),
    credits_applied: z
      .array(
        z.object({
          credit_grant: z.string().meta({ description: "The grant (`cg_…`) that paid." }),
          line: z.string().meta({ description: "The line (`il_…`) it paid." }),
          amount_atom: z.number().int(),
        }),
      )
      .meta({ description: "Per grant and line, what credit grants paid at finalization, in the order they applied (docs/billing.md, \"Credit grants\")." }),
    total_amount_atom: z.number().int().meta({ description: "subtotal − discount + exclusive tax − credits applied, never negative." }),
    due_amount_atom: z.number().int().meta({
      description:
        "What is left to collect: total − pre-payment credit notes − the balance applied (starting − ending balance; a debit adds) − partial payments. 0 once paid.",
    }),
    paid_amount_atom: z.number().int().meta({ description: "Partial payments collected while open; the total once paid (as the spec says), whatever part credit notes or the balance settled." }),
    pre_payment_credit_notes_amount_atom: z.number().int().meta({ description: "Σ of the issued credit notes made while it was open or uncollectible: they lowered the amount due." }),
    post_payment_credit_notes_amount_atom: z.number().int().meta({ description: "Σ of the issued credit notes made once it was paid (refunded, credited to the balance, or settled out of band)." }),
    starting_balance_atom: z.number().int().nullable().meta({
      description:
        "The customer's balance in the invoice's currency when it was finalized (positive: credit, negative: owed); null on drafts, except the previews (`invoice.upcoming`, `previewInvoice`), which show it as finalization would meet it.",
    }),
    ending_balance_atom: z.number().int().nullable().meta({
      description:
        "The balance after finalization applied it: a credit lowers the amount due (what exceeds the total stays), a debit is added whole; null on drafts, except the previews.",
    }),
    discount: z.string().nullable().meta({ description: "The customer discount (`di_…`) applied at finalization." }),
    payment_intent: z
      .string()
      .nullable()
      .meta({ description: "The latest payment intent (`pi_…`) created by paying the invoice with a payment method, or null." }),
    description: z.string().nullable(),
    // When the open invoice falls overdue (`invoice.overdue`): the `due_date` given, else for
    // `send_invoice` the finalization plus `days_until_due` (described on days_until_due; a
    // description here would change the published schema of every invoice event's due_date).
    due_date: DateTime.nullable(),
    collection_method: z.enum(COLLECTION_METHODS),
    days_until_due: z.number().int().nullable().meta({ description: "`send_invoice` without a `due_date`: the days from finalization to the due date (`due_date` is then the finalization plus these days); null otherwise." }),
    lines: z.array(InvoiceLine),
    finalized_at: DateTime.nullable(),
    paid_at: DateTime.nullable(),
    voided_at: DateTime.nullable(),
    marked_uncollectible_at: DateTime.nullable(),
    overdue_at: DateTime.nullable().meta({
      description: "When the open invoice passed its `due_date` and `invoice.overdue` was emitted; null until then.",
    }),
    attempt_count: z.number().int().meta({
      description: "Automatic collection attempts made with the subscription's `default_payment_method` (the renewal's attempt, then dunning retries).",
    }),
    next_payment_attempt: DateTime.nullable().meta({
      description:
        "When dunning retries the payment next; null when no retry is scheduled (paid, no automatic collection, or retries exhausted). On the previews: when the renewal would collect with the subscription's `default_payment_method`.",
    }),
    metadata: z.record(z.string(), z.string()),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "Invoice" });

/** A PDF document's bytes (the handler answers them as they are). */
export const InvoicePdfQuery = z.strictObject({
  version: z.enum(["issued", "paid"], { error: "Must be issued or paid." }).optional().meta({
    description: "`issued`: the document as finalized (`pdf_sha256`); `paid`: its paid version (`paid_pdf_sha256`). Absent: the paid version once there is one, else the issued one.",
  }),
});

export const InvoicePdf = z
  .custom<Uint8Array>((value) => value instanceof Uint8Array)
  .meta({ id: "InvoicePdf", override: { type: "string", format: "binary" } });

export const HostedInvoicePayInput = z
  .strictObject({
    payment_method: z.string().min(1).meta({ description: "A sandbox payment method (`pm_sandbox_…`); live invoices answer 422.", example: "pm_sandbox_succeeds" }),
  })
  .meta({ id: "HostedInvoicePayInput" });

export const InvoiceList = listEnvelopeSchema(Invoice, "InvoiceList");

export const InvoiceListQuery = PaginationQuery.extend({
  customer: z.string().min(1).optional().meta({ description: "Only invoices of this customer." }),
  status: z.enum(INVOICE_STATUSES, { error: `status must be one of ${INVOICE_STATUSES.join(", ")}.` }).optional(),
});

export type InvoiceObject = z.input<typeof Invoice>;
export type InvoiceLineObject = z.input<typeof InvoiceLine>;

type Address = z.output<typeof PostalAddress>;

/**
 * What an invoice prints besides its own fields, fixed at finalization (invoices.document, built
 * by lib/invoices/pdf/document.ts): the seller's and the buyer's details, the lines' product names
 * and the rates' names as they were then.
 */
/** One tier's part of a tiered line, as issued: units `from`…`to` (null: and up), units × unit amount + flat fee = amount. */
export type DocumentTierPart = { from: number; to: number | null; units: number; unit_amount_atom: number; flat_amount_atom: number; amount_atom: number };

export type InvoiceDocument = {
  locale: Locale;
  seller: { name: string; address: Address | null; tax_id: string | null; email: string | null };
  buyer: { name: string | null; email: string; address: Address | null; tax_ids: string[] };
  /**
   * Per line: the product's name and the price's nickname (or the line's own description); the
   * period it bills when the invoice's lines bill different periods (then `period` below is null);
   * for a tiered price, the tiers that priced its quantity (lib/prices/tiers.ts `tierBreakdown`),
   * printed instead of a unit price (absent in documents issued before tier breakdowns: they render
   * as issued).
   */
  lines: { title: string; detail: string | null; period?: { start: string; end: string }; tiers?: DocumentTierPart[] }[];
  tax_rates: { id: string; display_name: string; percentage_e4: number; inclusive: boolean }[];
  footer: string | null;
  /**
   * A subscription's invoice whose lines all bill one period: that period (ISO dates). Licensed
   * lines bill the subscription's period when it was finalized (in advance), metered lines the range
   * of their usage; when they differ, each line carries its own and this is null.
   */
  period?: { start: string; end: string } | null;
};
