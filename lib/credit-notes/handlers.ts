import type { z } from "zod";
import { handleExport } from "@/lib/api/export";
import { handle } from "@/lib/api/handler";
import type { ServiceContext } from "@/lib/context";
import type { CreditNoteListQuery } from "./schema";
import { envelope } from "@/lib/api/pagination";
import {
  createCreditNoteOperation,
  getCreditNoteOperation,
  getCreditNotePdfOperation,
  listCreditNotesOperation,
  exportCreditNotesOperation,
  previewCreditNoteOperation,
  voidCreditNoteOperation,
} from "./operations";
import { creditNotePdf, getCreditNote, listCreditNotes } from "./read";
import { serializeCreditNote } from "./serialize";
import { createCreditNote, previewCreditNote, voidCreditNote } from "./service";

/** A page of the credit notes list, as the list answers it (also an export's batch). */
async function creditNotePage({ ctx, query }: { ctx: ServiceContext; query: z.output<typeof CreditNoteListQuery> }) {
  const { rows, ...info } = await listCreditNotes({ ctx, input: query });
  return envelope(rows.map((row) => serializeCreditNote(row, ctx.livemode)), info);
}

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const creditNoteHandlers = [
  handle(listCreditNotesOperation, creditNotePage),
  handleExport(exportCreditNotesOperation, "credit-notes", creditNotePage),
  handle(createCreditNoteOperation, async ({ ctx, body }) => serializeCreditNote(await createCreditNote({ ctx, input: body }), ctx.livemode)),
  handle(previewCreditNoteOperation, async ({ ctx, body }) =>
    serializeCreditNote(await previewCreditNote({ ctx, input: body }), ctx.livemode, { preview: true }),
  ),
  handle(getCreditNoteOperation, async ({ ctx, params }) => serializeCreditNote(await getCreditNote({ ctx, input: { id: params.credit_note_id } }), ctx.livemode)),
  handle(voidCreditNoteOperation, async ({ ctx, params }) => serializeCreditNote(await voidCreditNote({ ctx, input: { id: params.credit_note_id } }), ctx.livemode)),
  handle(getCreditNotePdfOperation, async ({ ctx, params }) => creditNotePdf({ ctx, input: { id: params.credit_note_id } })),
];
