import { availableParallelism } from "node:os";
import { asc, inArray, sql } from "drizzle-orm";
import type { Database } from "@/db/client";
import * as schema from "@/db/schema";
import { renderInvoicePdf, sha256Hex } from "@/lib/invoices/pdf/render";
import { rowsOf } from "@/lib/rows";
import { expectPdfsMatchAsync, type PdfToCheck } from "./pdf";

/**
 * The issue's check of finalized invoices' documents, run with the event check
 * (tests/helpers/event-check.ts) on each database before it is dropped: the PDF rendered from the
 * stored invoice has the SHA-256 finalization recorded, passes `qpdf --check`, and its text has
 * the number, every line's description and amount, the subtotal, the taxes and the total exactly
 * as the invoice's JSON says; a paid invoice's paid version has the SHA-256 its payment recorded.
 *
 * Which documents (docs/testing.md, "The check of issued PDFs"): the first (by the ids' hash) of
 * every SHAPE and of every FEATURE the database holds, and besides them
 * - every document, at most PDFS_PER_ACCOUNT of an account (a sample fixed by the ids' hash): every
 *   test's account stays under it, so the api project's invoices are all checked;
 * - or, given `sample` (the property project's database: tens of thousands of invoices of a dozen
 *   accounts, from the same renderer), `sample` of the whole database by the ids' hash.
 * Each chosen document costs two renders and two tool processes (qpdf, pdftotext: each reads one
 * file per run, so they cannot be batched); the tools are most of it.
 */
const PDFS_PER_ACCOUNT = 300;

/**
 * A document's shape: what changes what the check reads in its text: the currency and the locale
 * (how money prints), the number of lines (more amounts; a long invoice breaks over pages), the
 * taxes (how many rows, inclusive or exclusive, under reverse charge), the credit notes issued on
 * it (before or after its payment: the paid version's rows) and whether it has a paid version.
 */
const SHAPE = sql`concat_ws(' / ', currency, document->>'locale', jsonb_array_length(document->'lines') || ' lines',
  jsonb_array_length(total_taxes) || ' taxes' || coalesce(' ' || (select string_agg(distinct case when (tax->>'inclusive')::boolean then 'inclusive' else 'exclusive' end, '+') from jsonb_array_elements(total_taxes) tax), ''),
  case when reverse_charge then 'reverse charge' end,
  case when pre_payment_credit_notes_amount_atom > 0 and post_payment_credit_notes_amount_atom > 0 then 'credit notes before and after payment'
       when pre_payment_credit_notes_amount_atom > 0 then 'credit note before payment'
       when post_payment_credit_notes_amount_atom > 0 then 'credit note after payment' end,
  case when paid_pdf_sha256 is not null then 'paid version' end)`;

/** The optional blocks the renderer prints (lib/invoices/pdf/render.ts), each wanted at least once beside the shapes. */
const FEATURES = sql`array_remove(array[
  case when discount_atom > 0 then 'discount' end,
  case when coalesce(starting_balance_atom, 0) > coalesce(ending_balance_atom, 0) then 'applied credit' end,
  case when coalesce(starting_balance_atom, 0) < coalesce(ending_balance_atom, 0) then 'applied debit' end,
  case when exists (select 1 from jsonb_array_elements(document->'lines') line where jsonb_typeof(line->'tiers') = 'array') then 'tiered line' end,
  case when exists (select 1 from jsonb_array_elements(document->'lines') line, jsonb_array_elements(case when jsonb_typeof(line->'tiers') = 'array' then line->'tiers' else '[]' end) part where (part->>'flat_amount_atom')::bigint > 0) then 'tier flat fee' end,
  case when exists (select 1 from jsonb_array_elements(document->'lines') line where jsonb_typeof(line->'period') = 'object') then 'line period' end,
  case when jsonb_typeof(document->'period') = 'object' then 'invoice period' end,
  case when due_date is not null then 'due date' end,
  case when jsonb_typeof(document->'footer') = 'string' then 'footer' end
], null)`;

/**
 * Shells checking documents at once (each a share of a chunk's documents, qpdf and pdftotext one
 * file after the other): one at a time left a core idle while the run's last teardown (the
 * property project's, after every test) had nothing else to do.
 */
const AT_ONCE = Math.max(2, availableParallelism());

/** What one database's check covered: its summary line (tests/helpers/event-check.ts) names it. */
export type PdfCheckCoverage = { checked: number; finalized: number; shapes: number; features: number; sample: number | null; ms: number };

export async function checkInvoicePdfs(
  db: Database,
  database: string,
  { sample }: { sample?: number } = {},
): Promise<PdfCheckCoverage & { failures: { eventId: string; errors: string; database: string }[] }> {
  const started = Date.now();
  const failures: { eventId: string; errors: string; database: string }[] = [];
  let checked = 0;
  const documents = sql`(select id, md5(id) as draw, ${SHAPE} as shape, ${FEATURES} as features,
      row_number() over (partition by account_id order by md5(id)) as rank, row_number() over (order by md5(id)) as overall
    from ${schema.invoices} where document is not null)`;
  const [coverage] = rowsOf<{ finalized: number; shapes: number; features: number }>(
    await db.execute(sql`select count(*)::int as finalized, count(distinct shape)::int as shapes,
      (select count(distinct feature)::int from ${documents} d, unnest(d.features) feature) as features from ${documents} d`),
  );
  const chosen = sql`(select distinct on (shape) id from ${documents} d order by shape, draw)
    union (select distinct on (feature) id from ${documents} d, unnest(d.features) feature order by feature, draw)
    union (select id from ${documents} d where ${sample === undefined ? sql`rank <= ${PDFS_PER_ACCOUNT}` : sql`overall <= ${sample}`})`;
  const sampled = rowsOf<{ id: string }>(await db.execute(sql`select id from (${chosen}) chosen order by id`));
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
    // Each document rendered again (its hashes compared here), then qpdf and pdftotext over the
    // chunk in AT_ONCE shells side by side (expectPdfsMatchAsync: one spawn per batch, not per file).
    const documents = await Promise.all(
      rows.map(async (invoice) => {
        const own = lines.filter((line) => line.invoiceId === invoice.id);
        const document = invoice.document!;
        const bytes = await renderInvoicePdf(invoice, own, document);
        const problems: string[] = [];
        if (sha256Hex(bytes) !== invoice.pdfSha256) problems.push("the PDF's SHA-256 is not the pdf_sha256 recorded at finalization");
        // The paid version, once there is one, renders the bytes whose hash the payment recorded.
        if (invoice.paidPdfSha256 !== null && sha256Hex(await renderInvoicePdf(invoice, own, document, "paid")) !== invoice.paidPdfSha256) {
          problems.push("the paid version's SHA-256 is not the paid_pdf_sha256 recorded when it was paid");
        }
        const toCheck: PdfToCheck = {
          bytes,
          invoice: {
            number: invoice.number ?? "",
            currency: invoice.currency,
            subtotal_atom: invoice.subtotalAtom,
            tax_atom: invoice.taxAtom,
            total_amount_atom: invoice.totalAmountAtom,
            total_taxes: invoice.totalTaxes,
            lines: own.map((line) => ({ amount_atom: line.amountAtom })),
          },
          // A longer description wraps over several lines, between which -layout puts the other columns.
          lineTitles: document.lines.map((line) => line.title).filter((title) => title.length > 0 && title.length <= 40),
          locale: document.locale,
        };
        return { invoice, problems, toCheck };
      }),
    );
    const batch = Math.ceil(documents.length / AT_ONCE);
    const batches = Array.from({ length: Math.ceil(documents.length / batch) }, (_, index) => documents.slice(index * batch, (index + 1) * batch));
    const checkedProblems = (await Promise.all(batches.map((part) => expectPdfsMatchAsync(part.map((document) => document.toCheck))))).flat();
    documents.forEach(({ invoice, problems }, index) => {
      problems.push(...checkedProblems[index]!);
      if (problems.length > 0) failures.push({ eventId: invoice.id, errors: problems.join("; "), database });
      checked += 1;
    });
  }
  return { checked, finalized: coverage?.finalized ?? 0, shapes: coverage?.shapes ?? 0, features: coverage?.features ?? 0, sample: sample ?? null, ms: Date.now() - started, failures };
}
