import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { invoices } from "@/db/schema";
import type { ChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";
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
 * At finalization, in its transaction: fixes what the document prints, renders it once for its
 * SHA-256 (which `invoice.finalized` carries) and gives the invoice its hosted page's token.
 */
export async function issueDocument(tx: ChangeTransaction, invoice: InvoiceRow, lines: readonly InvoiceLineRow[]): Promise<InvoiceRow> {
  const document = await buildDocument(tx, invoice, lines);
  const pdf = await renderInvoicePdf(invoice, lines, document);
  return one(
    await tx
      .update(invoices)
      .set({ document, pdfSha256: sha256Hex(pdf), hostedToken: newHostedToken() })
      .where(eq(invoices.id, invoice.id))
      .returning(),
  );
}
