import { and, count, eq, getTableColumns, isNull, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Executor } from "@/db/client";
import { invoiceLines, invoices, prices } from "@/db/schema";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import { lineRange } from "@/lib/time";
import { amountOf, perUnit, safeAtoms, type PriceTerms } from "@/lib/prices/amount";
import { requireTermsIn } from "@/lib/prices/in-currency";
import { taxRatesOf } from "@/lib/tax-rates/service";
import { linesOf, lockInvoice } from "./core";
import { canEditLines } from "./rules";
import { MAX_LINES, type InvoiceLineInput } from "./schema";
import type { InvoiceLineRow, InvoiceRow, InvoiceWithLines } from "./serialize";

/* An invoice's lines: how a line input becomes a row, the draft totals, and the draft line verbs. */

/**
 * A line to make: the API's line input, or a subscription's item line. `subscribed` (set by
 * subscriptions only; clients cannot send it) bills an item whose price was archived or deleted
 * since: the customer agreed to that price, so its renewals keep billing it (as Stripe does).
 */
export type LineInput = z.output<typeof InvoiceLineInput> & { subscribed?: true };

/** The line's amount (`amountOf`, the one function that prices a price), refused when it cannot be an exact integer (beyond 2^53 − 1). */
function lineAmount(price: PriceTerms, quantity: number, field: string): number {
  const amount = safeAtoms(amountOf(price, quantity));
  if (amount === null) throw validationFailed([{ field, message: "The line's amount (its price for the quantity) exceeds 2^53 - 1 atoms." }]);
  return amount;
}

/**
 * Resolves one line input into a row to insert: a price of the account in the invoice's currency
 * (per unit: its unit amount; tiered: `unit_amount_atom` 0, no single unit amount), or a custom
 * amount per unit.
 */
export async function lineRow(
  tx: Executor,
  invoice: Pick<InvoiceRow, "id" | "accountId" | "currency">,
  line: LineInput,
  field: string,
  created: Date,
): Promise<typeof invoiceLines.$inferInsert> {
  const quantity = line.quantity ?? 1;
  const taxRateIds = (await taxRatesOf(tx, invoice.accountId, line.tax_rates ?? [], `${field}tax_rates`)).map((rate) => rate.id);
  if (line.price === undefined) {
    // The schema requires unit_amount_atom when price is absent.
    const unitAmountAtom = line.unit_amount_atom!;
    return { ...lineBase(invoice, null, line, quantity, taxRateIds, created), unitAmountAtom, amountAtom: lineAmount(perUnit(unitAmountAtom), quantity, `${field}quantity`) };
  }
  const [price] = await tx
    .select()
    .from(prices)
    .where(and(eq(prices.accountId, invoice.accountId), eq(prices.id, line.price), line.subscribed ? undefined : isNull(prices.deletedAt)));
  const refuse = (message: string) => validationFailed([{ field: `${field}price`, message }], message);
  if (!price) throw refuse(`No such price: '${line.price}'.`);
  if (!price.active && !line.subscribed) throw refuse(`Price '${price.id}' is archived.`);
  // The price in the invoice's currency: its own amount, or its currency option's (422 naming both when it has none).
  const terms = requireTermsIn(price, invoice.currency, `${field}price`);
  if (price.usageType === "metered") throw refuse(`Price '${price.id}' is metered: it is billed from usage at renewal.`);
  return {
    ...lineBase(invoice, price.id, line, quantity, taxRateIds, created),
    // A tiered line's amount is its tiers' for the quantity; it has no single unit amount (0).
    unitAmountAtom: terms.billingScheme === "tiered" ? 0 : terms.unitAmountAtom,
    amountAtom: lineAmount(terms, quantity, `${field}quantity`),
  };
}

/**
 * "Proration (15 Jan 2027 14:05:09 UTC – 1 Feb 2027)": the line of what a change costs now, for
 * the rest of the period. Descriptions are stored with the line: issued invoices keep theirs.
 */
export function prorationLineDescription(from: Date, periodEnd: Date): string {
  return `Proration (${lineRange(from, periodEnd)})`;
}

/**
 * A metered item's line, priced by lib/usage/billing.ts: the price, the aggregated usage as its
 * quantity, the per-unit amount (0 for a tiered price) and the amount. Subscriptions only (an API
 * line cannot name a metered price).
 */
export type UsageLineInput = {
  price: string;
  quantity: number;
  unit_amount_atom: number;
  amount_atom: number;
  description: string;
  tax_rates?: string[];
  /** The range whose usage it bills: printed as the line's service period (lib/invoices/pdf/document.ts). */
  period?: { start: Date; end: Date };
};

export async function usageLineRow(
  tx: Executor,
  invoice: Pick<InvoiceRow, "id" | "accountId">,
  line: UsageLineInput,
  field: string,
  created: Date,
): Promise<typeof invoiceLines.$inferInsert> {
  const taxRateIds = (await taxRatesOf(tx, invoice.accountId, line.tax_rates ?? [], `${field}tax_rates`)).map((rate) => rate.id);
  return {
    ...lineBase(invoice, line.price, line, line.quantity, taxRateIds, created),
    unitAmountAtom: line.unit_amount_atom,
    amountAtom: line.amount_atom,
    periodStart: line.period?.start ?? null,
    periodEnd: line.period?.end ?? null,
  };
}

function lineBase(
  invoice: Pick<InvoiceRow, "id" | "accountId">,
  priceId: string | null,
  line: { description?: string | null },
  quantity: number,
  taxRateIds: string[],
  created: Date,
) {
  return {
    id: newId("invoiceLine"),
    accountId: invoice.accountId,
    invoiceId: invoice.id,
    priceId,
    description: line.description ?? null,
    quantity,
    taxRateIds,
    created,
  };
}

/** Draft totals follow the lines; the discount is applied only at finalization. */
export function draftTotals(lines: readonly Pick<InvoiceLineRow, "amountAtom">[]) {
  const subtotal = lines.reduce((sum, line) => sum + BigInt(line.amountAtom), BigInt(0));
  if (subtotal > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw validationFailed([{ field: "lines", message: "The invoice subtotal exceeds 2^53 - 1 atoms." }]);
  }
  const subtotalAtom = Number(subtotal);
  return { subtotalAtom, discountAtom: 0, totalAmountAtom: subtotalAtom, dueAmountAtom: subtotalAtom };
}

/** What finalization fixes on each line: the rates that applied, its share of the discount, its taxes. */
export type LineTaxes = Pick<InvoiceLineRow, "id" | "taxRateIds" | "discountAtom" | "taxAmounts">;

/**
 * Writes finalization's taxes on every line in one statement (a line per row of a JSON recordset,
 * so the text is the same for any number of lines and is prepared once). Answers the lines in the
 * order given.
 */
export async function setLineTaxes(tx: ChangeTransaction, lines: readonly LineTaxes[]): Promise<InvoiceLineRow[]> {
  const given = JSON.stringify(lines.map((line) => ({ id: line.id, tax_rate_ids: line.taxRateIds, discount_atom: line.discountAtom, tax_amounts: line.taxAmounts })));
  const rows = await tx
    .update(invoiceLines)
    .set({ taxRateIds: sql`given.tax_rate_ids`, discountAtom: sql`given.discount_atom`, taxAmounts: sql`given.tax_amounts` })
    .from(sql`jsonb_to_recordset(${given}::jsonb) as given(id text, tax_rate_ids jsonb, discount_atom bigint, tax_amounts jsonb)`)
    .where(eq(invoiceLines.id, sql`given.id`))
    .returning(getTableColumns(invoiceLines));
  const byId = new Map(rows.map((row) => [row.id, row]));
  return lines.map((line) => {
    const row = byId.get(line.id);
    if (!row) throw new Error(`Invoice line '${line.id}' was not updated.`);
    return row;
  });
}

/**
 * Changes a draft's lines and recomputes its totals. Draft edits emit no event: the catalogue has
 * no `invoice.updated`, and the lines are final (and recorded) in `invoice.finalized`.
 */
async function editDraftLines(
  ctx: ServiceContext,
  invoiceId: string,
  edit: (tx: ChangeTransaction, invoice: InvoiceRow) => Promise<void>,
): Promise<InvoiceWithLines> {
  return withChangeTransaction(async (tx) => {
    const invoice = await lockInvoice(tx, ctx.accountId, invoiceId);
    if (!canEditLines(invoice)) {
      throw new ServiceError("conflict", `Invoice '${invoice.id}' is ${invoice.status}; only a draft invoice's lines can change.`);
    }
    await edit(tx, invoice);
    const lines = await linesOf(tx, invoice.id);
    const after = one(await tx
      .update(invoices)
      .set({ ...draftTotals(lines), updated: ctx.now() })
      .where(eq(invoices.id, invoice.id))
      .returning());
    // Only open or uncollectible invoices are paid with an intent: a draft has none.
    return { invoice: after, lines, paymentIntent: null };
  });
}

export async function addInvoiceLine({ ctx, input }: Verb<{ invoiceId: string; line: LineInput }>): Promise<InvoiceWithLines> {
  return editDraftLines(ctx, input.invoiceId, async (tx, invoice) => {
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(invoiceLines).where(eq(invoiceLines.invoiceId, invoice.id));
    if (n >= MAX_LINES) throw validationFailed([{ field: "(body)", message: `An invoice has at most ${MAX_LINES} lines.` }]);
    await tx.insert(invoiceLines).values(await lineRow(tx, invoice, input.line, "", ctx.now()));
  });
}

export async function removeInvoiceLine({ ctx, input }: Verb<{ invoiceId: string; lineId: string }>): Promise<InvoiceWithLines> {
  return editDraftLines(ctx, input.invoiceId, async (tx, invoice) => {
    const removed = await tx
      .delete(invoiceLines)
      .where(and(eq(invoiceLines.invoiceId, invoice.id), eq(invoiceLines.id, input.lineId)))
      .returning({ id: invoiceLines.id });
    if (removed.length === 0) throw notFound("invoice line", input.lineId);
  });
}
