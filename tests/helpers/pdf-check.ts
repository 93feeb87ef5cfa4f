import { and, asc, gt, inArray, isNotNull } from "drizzle-orm";
import type { Database } from "@/db/client";
import * as schema from "@/db/schema";
import { renderInvoicePdf, sha256Hex } from "@/lib/invoices/pdf/render";
import { expectPdfMatches } from "./pdf";

/**
 * The check of every finalized invoice's document, run with the event check
 * (tests/helpers/event-check.ts) on each database before it is dropped: the PDF rendered from the
 * stored invoice has the SHA-256 finalization recorded, passes `qpdf --check`, and its text has
 * the number, every line's description and amount, the subtotal, the taxes and the total exactly
 * as the invoice's JSON says.
 */
export async function checkInvoicePdfs(db: Database, database: string): Promise<{ checked: number; failures: { eventId: string; errors: string; database: string }[] }> {
  const failures: { eventId: string; errors: string; database: string }[] = [];
  let checked = 0;
  for (let after = ""; ; ) {
    const rows = await db
      .select()
      .from(schema.invoices)
      .where(and(isNotNull(schema.invoices.document), gt(schema.invoices.id, after)))
      .orderBy(asc(schema.invoices.id))
      .limit(200);
    if (rows.length === 0) break;
    const lines = await db
      .select()
      .from(schema.invoiceLines)
      .where(inArray(schema.invoiceLines.invoiceId, rows.map((row) => row.id)))
      .orderBy(asc(schema.invoiceLines.created), asc(schema.invoiceLines.id));
    for (const invoice of rows) {
      const own = lines.filter((line) => line.invoiceId === invoice.id);
      const document = invoice.document!;
      const bytes = await renderInvoicePdf(invoice, own, document);
      const problems: string[] = [];
      if (sha256Hex(bytes) !== invoice.pdfSha256) problems.push("the PDF's SHA-256 is not the pdf_sha256 recorded at finalization");
      problems.push(
        ...expectPdfMatches(
          bytes,
          {
            number: invoice.number ?? "",
            currency: invoice.currency,
            subtotal_atom: invoice.subtotalAtom,
            tax_atom: invoice.taxAtom,
            total_amount_atom: invoice.totalAmountAtom,
            total_taxes: invoice.totalTaxes,
            lines: own.map((line) => ({ amount_atom: line.amountAtom })),
          },
          // A longer description wraps over several lines, between which -layout puts the other columns.
          document.lines.map((line) => line.title).filter((title) => title.length > 0 && title.length <= 40),
          document.locale,
        ),
      );
      if (problems.length > 0) failures.push({ eventId: invoice.id, errors: problems.join("; "), database });
      checked += 1;
    }
    after = rows.at(-1)!.id;
  }
  return { checked, failures };
}
