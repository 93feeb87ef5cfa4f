import { availableParallelism } from "node:os";
import { asc, inArray, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import * as schema from "@/db/schema";
import { renderInvoicePdf, sha256Hex } from "@/lib/invoices/pdf/render";
import { rowsOf } from "@/lib/rows";
import { expectPdfMatchesAsync } from "./pdf";

/**
 * The issue's check of every finalized invoice's document, run with the event check
 * (tests/helpers/event-check.ts) on each database before it is dropped: the PDF rendered from the
 * stored invoice has the SHA-256 finalization recorded, passes `qpdf --check`, and its text has
 * the number, every line's description and amount, the subtotal, the taxes and the total exactly
 * as the invoice's JSON says; a paid invoice's paid version has the SHA-256 its payment recorded.
 *
 * At most PDFS_PER_ACCOUNT of an account's invoices, a sample fixed by the ids' hash: every test's
 * account stays under it, while the property test's few accounts hold thousands of one-line
 * invoices from the same renderer, which would triple the suite's end-of-run check.
 */
const PDFS_PER_ACCOUNT = 300;

/**
 * Documents checked at once: each check waits on qpdf and pdftotext, processes of their own, so
 * one at a time left a core idle while the run's last teardown (the property project's, after
 * every test) had nothing else to do.
 */
const AT_ONCE = Math.max(2, availableParallelism());

/**
 * `maxPdfs`: at most this many of the whole database, a sample fixed by the ids' hash the same way:
 * the property project's database (tests/setup/property-database.ts), whose dozen accounts hold
 * tens of thousands of invoices of one renderer, would otherwise take 300 of each.
 */
export async function checkInvoicePdfs(db: Database, database: string, { maxPdfs }: { maxPdfs?: number } = {}): Promise<{ checked: number; failures: { eventId: string; errors: string; database: string }[] }> {
  const failures: { eventId: string; errors: string; database: string }[] = [];
  let checked = 0;
  const sampled = rowsOf<{ id: string }>(
    await db.execute(sql`
    select id from (
      select id, row_number() over (partition by account_id order by md5(id)) as rank, row_number() over (order by md5(id)) as overall
      from ${schema.invoices} where document is not null
    ) ranked where rank <= ${PDFS_PER_ACCOUNT} and overall <= ${maxPdfs ?? 2 ** 31 - 1} order by id`),
  );
  const ids = sampled.map((row) => row.id);
  for (let start = 0; start < ids.length; start += 200) {
    const rows = await db
      .select()
      .from(schema.invoices)
      .where(inArray(schema.invoices.id, ids.slice(start, start + 200)))
      .orderBy(asc(schema.invoices.id));
    const lines = await db
      .select()
      .from(schema.invoiceLines)
      .where(inArray(schema.invoiceLines.invoiceId, rows.map((row) => row.id)))
      .orderBy(asc(schema.invoiceLines.created), asc(schema.invoiceLines.id));
    const check = async (invoice: (typeof rows)[number]) => {
      const own = lines.filter((line) => line.invoiceId === invoice.id);
      const document = invoice.document!;
      const bytes = await renderInvoicePdf(invoice, own, document);
      const problems: string[] = [];
      if (sha256Hex(bytes) !== invoice.pdfSha256) problems.push("the PDF's SHA-256 is not the pdf_sha256 recorded at finalization");
      // The paid version, once there is one, renders the bytes whose hash the payment recorded.
      if (invoice.paidPdfSha256 !== null && sha256Hex(await renderInvoicePdf(invoice, own, document, "paid")) !== invoice.paidPdfSha256) {
        problems.push("the paid version's SHA-256 is not the paid_pdf_sha256 recorded when it was paid");
      }
      problems.push(
        ...(await expectPdfMatchesAsync(
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
        )),
      );
      if (problems.length > 0) failures.push({ eventId: invoice.id, errors: problems.join("; "), database });
      checked += 1;
    };
    // AT_ONCE checks at a time, in the rows' order.
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(AT_ONCE, rows.length) }, async () => {
        while (next < rows.length) await check(rows[next++]!);
      }),
    );
  }
  return { checked, failures };
}
