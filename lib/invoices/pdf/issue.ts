import { randomBytes } from "node:crypto";
import type { Executor } from "@/db/client";
import type { InvoiceLineRow, InvoiceRow } from "../serialize";
import { buildDocument } from "./document";
import { renderInvoicePdf, sha256Hex } from "./render";

/** 32 random bytes: the hosted page's capability, as unguessable as a checkout session's URL. */
export function newHostedToken(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * When the invoice is paid, in that transaction: the SHA-256 of its paid version (the document as
 * issued with the paid mark, the amount paid and nothing due), which `invoice.paid` carries. An
 * invoice finalized without a document (none is) has no paid version either.
 */
export async function paidPdfSha256(paid: InvoiceRow, lines: readonly InvoiceLineRow[]): Promise<string | null> {
  if (paid.document === null) return null;
  return sha256Hex(await renderInvoicePdf(paid, lines, paid.document, "paid"));
}

/**
 * At finalization, in its transaction: what the document prints, fixed; its SHA-256 (rendered once,
 * which `invoice.finalized` carries); the hosted page's token. `invoice` is the open invoice as it
 * will be written (number, amounts): the caller writes these columns in the same update.
 */
export async function issuedDocumentColumns(
  executor: Executor,
  invoice: InvoiceRow,
  lines: readonly InvoiceLineRow[],
): Promise<Pick<InvoiceRow, "document" | "pdfSha256" | "hostedToken">> {
  const document = await buildDocument(executor, invoice, lines);
  const pdf = await renderInvoicePdf(invoice, lines, document);
  return { document, pdfSha256: sha256Hex(pdf), hostedToken: newHostedToken() };
}
