import { and, eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { pageOf } from "@/db/page";
import { creditNotes, invoices } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { notFound, ServiceError } from "@/lib/errors";
import { renderCreditNotePdf } from "./pdf";
import type { CreditNoteRow } from "./serialize";

export async function getCreditNote({ ctx, input }: Verb<{ id: string }>): Promise<CreditNoteRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(creditNotes)
    .where(and(eq(creditNotes.accountId, ctx.accountId), eq(creditNotes.id, input.id)));
  if (!row) throw notFound("credit note", input.id);
  return row;
}

/** Newest first; `invoice` and `customer` narrow it (each walks its own `(…, created, id)` index). */
export async function listCreditNotes({ ctx, input }: Verb<Page & { invoice?: string; customer?: string }>): Promise<{ rows: CreditNoteRow[] } & PageInfo> {
  const where = and(
    eq(creditNotes.accountId, ctx.accountId),
    input.invoice ? eq(creditNotes.invoiceId, input.invoice) : undefined,
    input.customer ? eq(creditNotes.customerId, input.customer) : undefined,
  );
  return pageOf(creditNotes, where, input);
}

/** The credit note's PDF, as issued: the same bytes every time (its `pdf_sha256`). */
export async function creditNotePdf({ ctx, input }: Verb<{ id: string }>): Promise<Buffer> {
  const note = await getCreditNote({ ctx, input });
  const db = await getDb();
  const [invoice] = await db
    .select({ number: invoices.number, document: invoices.document, reverseCharge: invoices.reverseCharge })
    .from(invoices)
    .where(eq(invoices.id, note.invoiceId));
  if (!invoice?.document) throw new ServiceError("conflict", `Credit note '${note.id}' has no document: its invoice has none.`);
  return renderCreditNotePdf(note, { number: invoice.number, document: invoice.document, reverseCharge: invoice.reverseCharge });
}
