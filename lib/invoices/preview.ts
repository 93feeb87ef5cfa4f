import type { Executor } from "@/db/client";
import type { invoiceLines } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { balanceApplied } from "@/lib/customer-balance/service";
import { newId } from "@/lib/ids";
import { lineRow, usageLineRow, type LineInput, type UsageLineInput } from "./lines";
import { amountColumns, finalizationAmounts } from "./amounts";
import type { CollectionMethod } from "./schema";
import type { InvoiceLineRow, InvoiceRow, InvoiceWithLines } from "./serialize";

/*
 * An invoice as `createInvoice` then `finalizeInvoice` would make it, computed and stored nowhere:
 * what `invoice.upcoming` carries and what `POST /invoices/preview` answers
 * (lib/subscriptions/upcoming.ts builds both from the subscription).
 */

/** A line of the preview; `proration` marks a line billing part of a period for a change. */
export type PreviewLineInput = LineInput & { proration?: boolean };

export type InvoicePreviewInput = {
  /** The id the invoice will carry (`invoice.upcoming` reserves it); absent: a throwaway one. */
  id?: string;
  customer: string;
  currency: string;
  subscription: string | null;
  description: string | null;
  lines: PreviewLineInput[];
  /** Metered usage, after `lines` (as createInvoice orders them). */
  usage?: UsageLineInput[];
  /** When it would be made and finalized: the customer's discount in force then applies; its `created`. */
  at: Date;
  /** The customer's balance in the currency when it is finalized (a credit lowers the amount due, a debit adds). */
  startingBalanceAtom: number;
  /** When its payment would be attempted (automatic collection), or null. */
  nextPaymentAttempt: Date | null;
  /** The subscription's collection method (absent: charge_automatically) and days until due. */
  collectionMethod?: CollectionMethod;
  daysUntilDue?: number | null;
};

/** The invoice with, per line (same order), whether it is a proration. */
export type InvoicePreview = InvoiceWithLines & { prorations: boolean[] };

/** Line rows as the draft would hold them (ids are throwaway: nothing is stored). */
async function previewLines(executor: Executor, header: Pick<InvoiceRow, "id" | "accountId" | "currency">, input: InvoicePreviewInput, now: Date) {
  const rows: (typeof invoiceLines.$inferInsert)[] = [];
  for (const [index, line] of input.lines.entries()) rows.push(await lineRow(executor, header, line, `lines.${index}.`, now));
  for (const [index, line] of (input.usage ?? []).entries()) rows.push(await usageLineRow(executor, header, line, `usage.${index}.`, now));
  return rows.map(
    (row): InvoiceLineRow => ({
      ...row,
      id: row.id!,
      priceId: row.priceId ?? null,
      description: row.description ?? null,
      taxRateIds: row.taxRateIds ?? [],
      periodStart: row.periodStart ?? null,
      periodEnd: row.periodEnd ?? null,
      discountAtom: 0,
      taxAmounts: [],
      created: now,
    }),
  );
}

/**
 * The same steps as finalization (lib/invoices/service.ts `finalizeInvoice`): the customer's
 * discount in force at `at`, the taxes after the discount's share, then the balance.
 */
export async function previewInvoice(executor: Executor, ctx: ServiceContext, input: InvoicePreviewInput): Promise<InvoicePreview> {
  const now = ctx.now();
  const header = { id: input.id ?? newId("invoice"), accountId: ctx.accountId, customerId: input.customer, currency: input.currency };
  const lines = await previewLines(executor, header, input, now);
  const amounts = await finalizationAmounts(executor, header, lines, input.at);
  const { discount, taxes, totalAtom } = amounts;
  for (const [index, line] of lines.entries()) {
    Object.assign(line, { taxRateIds: taxes.rateIds[index]!, discountAtom: taxes.lines[index]!.discountAtom, taxAmounts: taxes.lines[index]!.taxes });
  }
  const balance = balanceApplied(input.startingBalanceAtom, totalAtom);
  const invoice: InvoiceRow = {
    ...header,
    subscriptionId: input.subscription,
    status: "draft",
    number: null,
    numberSequence: null,
    document: null,
    pdfSha256: null,
    paidPdfSha256: null,
    hostedToken: null,
    ...amountColumns(amounts, balance),
    paidAmountAtom: 0,
    prePaymentCreditNotesAmountAtom: 0,
    postPaymentCreditNotesAmountAtom: 0,
    discountId: discount?.id ?? null,
    description: input.description,
    dueDate: null,
    collectionMethod: input.collectionMethod ?? "charge_automatically",
    daysUntilDue: input.collectionMethod === "send_invoice" ? (input.daysUntilDue ?? null) : null,
    finalizedAt: null,
    paidAt: null,
    voidedAt: null,
    markedUncollectibleAt: null,
    overdueAt: null,
    attemptCount: 0,
    nextPaymentAttempt: input.nextPaymentAttempt,
    metadata: {},
    // When it would be made: the same answer for the same state, whenever asked.
    created: input.at,
    updated: input.at,
  };
  const prorations = [...input.lines.map((line) => line.proration ?? false), ...(input.usage ?? []).map(() => false)];
  return { invoice, lines, paymentIntent: null, prorations };
}
