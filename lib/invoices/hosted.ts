import { eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts, invoices } from "@/db/schema";
import { accountClock } from "@/lib/time";
import type { ServiceContext } from "@/lib/context";
import { notFound, ServiceError } from "@/lib/errors";
import { loadInvoice } from "./core";
import { renderInvoicePdf, type PdfVersion } from "./pdf/render";
import type { InvoiceWithLines } from "./serialize";
import { payInvoice } from "./settle";

/* The invoice as its documents and the hosted page show it: the PDF, by id (secret) or by the hosted page's token (public). */

/**
 * The PDF of a finalized invoice, rendered from what finalization fixed: its paid version once it
 * has one (`paid_pdf_sha256`), else the issued one (`pdf_sha256`); `version` asks for one. Each is
 * the same bytes every time.
 */
export async function invoicePdf(found: InvoiceWithLines, version?: PdfVersion): Promise<Buffer> {
  const { invoice, lines } = found;
  if (invoice.status === "draft" || invoice.document === null) {
    throw new ServiceError("conflict", `Invoice '${invoice.id}' is a draft; its document exists once it is finalized.`);
  }
  const wanted = version ?? (invoice.paidPdfSha256 !== null ? "paid" : "issued");
  if (wanted === "paid" && invoice.paidPdfSha256 === null) {
    throw new ServiceError("conflict", `Invoice '${invoice.id}' has no paid version: it is ${invoice.status}${invoice.status === "paid" ? " (paid before paid versions existed)" : ""}.`);
  }
  return renderInvoicePdf(invoice, lines, invoice.document, wanted);
}

/** A syntactically possible token: anything else is not looked up (and is the same 404). */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The invoice behind a hosted page token, with its account's mode and clock; a wrong token is a 404 that says nothing more. */
export async function findHostedInvoice(token: string): Promise<{ found: InvoiceWithLines; ctx: ServiceContext }> {
  const missing = notFound("invoice", "(hosted link)");
  if (!TOKEN.test(token)) throw missing;
  const db = await getDb();
  const [row] = await db
    .select({ invoice: invoices, livemode: accounts.livemode, clockOffsetMs: accounts.clockOffsetMs })
    .from(invoices)
    .innerJoin(accounts, eq(accounts.id, invoices.accountId))
    .where(eq(invoices.hostedToken, token));
  if (!row) throw missing;
  const ctx: ServiceContext = {
    accountId: row.invoice.accountId,
    livemode: row.livemode,
    actor: { type: "customer", id: row.invoice.customerId },
    correlationId: null,
    now: accountClock(row.clockOffsetMs),
  };
  return { found: await loadInvoice(db, row.invoice), ctx };
}

/** Pays an open invoice from its hosted page with a sandbox payment method (sandbox accounts only, as `POST /invoices/{id}/pay`). */
export async function payHostedInvoice({
  input,
}: {
  input: { token: string; paymentMethod: string; correlationId: string };
}): Promise<{ paid: InvoiceWithLines; livemode: boolean }> {
  const { found, ctx } = await findHostedInvoice(input.token);
  const paid = await payInvoice({ ctx: { ...ctx, correlationId: input.correlationId }, input: { id: found.invoice.id, payment: { payment_method: input.paymentMethod }, onSession: true } });
  return { paid, livemode: ctx.livemode };
}

/** What the hosted invoice page shows: plain data, no database types (the page cannot import db/). */
export type HostedInvoice = {
  token: string;
  accountId: string;
  number: string;
  status: string;
  livemode: boolean;
  locale: "en" | "fr" | "de";
  currency: string;
  sellerName: string;
  buyerName: string | null;
  buyerEmail: string;
  issued: string;
  dueDate: string | null;
  lines: { title: string; detail: string | null; quantity: number; amountAtom: number }[];
  subtotalAtom: number;
  discountAtom: number;
  taxes: { name: string; amountAtom: number; inclusive: boolean }[];
  /** What credit grants paid (already out of the total). */
  creditsAppliedAtom: number;
  totalAtom: number;
  paidAtom: number;
  dueAtom: number;
  reverseCharge: boolean;
  footer: string | null;
};

/** The hosted page's invoice, or null for a token that names none (the page is then a 404). */
export async function getHostedInvoice(token: string): Promise<HostedInvoice | null> {
  let hosted: { found: InvoiceWithLines; ctx: ServiceContext };
  try {
    hosted = await findHostedInvoice(token);
  } catch (error) {
    if (error instanceof ServiceError && error.category === "not_found") return null;
    throw error;
  }
  const { invoice, lines } = hosted.found;
  const document = invoice.document!;
  const rates = new Map(document.tax_rates.map((rate) => [rate.id, rate]));
  return {
    token,
    accountId: invoice.accountId,
    number: invoice.number ?? invoice.id,
    status: invoice.status,
    livemode: hosted.ctx.livemode,
    locale: document.locale,
    currency: invoice.currency,
    sellerName: document.seller.name,
    buyerName: document.buyer.name,
    buyerEmail: document.buyer.email,
    issued: (invoice.finalizedAt ?? invoice.created).toISOString(),
    dueDate: invoice.dueDate?.toISOString() ?? null,
    lines: lines.map((line, index) => ({
      title: document.lines[index]?.title ?? line.description ?? "",
      detail: document.lines[index]?.detail ?? null,
      quantity: line.quantity,
      amountAtom: line.amountAtom,
    })),
    subtotalAtom: invoice.subtotalAtom,
    discountAtom: invoice.discountAtom,
    taxes: invoice.totalTaxes.map((tax) => {
      const rate = rates.get(tax.tax_rate);
      return { name: rate ? `${rate.display_name} ${invoice.reverseCharge ? 0 : rate.percentage_e4 / 10_000} %` : "Tax", amountAtom: tax.amount_atom, inclusive: tax.inclusive };
    }),
    creditsAppliedAtom: invoice.creditsAppliedAtom,
    totalAtom: invoice.totalAmountAtom,
    paidAtom: invoice.paidAmountAtom,
    dueAtom: invoice.dueAmountAtom,
    reverseCharge: invoice.reverseCharge,
    footer: document.footer,
  };
}

