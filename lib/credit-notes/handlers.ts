import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import {
  createCreditNoteOperation,
  getCreditNoteOperation,
  getCreditNotePdfOperation,
  listCreditNotesOperation,
  previewCreditNoteOperation,
  voidCreditNoteOperation,
} from "./operations";
import { creditNotePdf, getCreditNote, listCreditNotes } from "./read";
import { serializeCreditNote } from "./serialize";
import { createCreditNote, previewCreditNote, voidCreditNote } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const creditNoteHandlers = [
  handle(listCreditNotesOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listCreditNotes({ ctx, input: query });
    return envelope(rows.map((row) => serializeCreditNote(row, ctx.livemode)), info);
  }),
  handle(createCreditNoteOperation, async ({ ctx, body }) => serializeCreditNote(await createCreditNote({ ctx, input: body }), ctx.livemode)),
  handle(previewCreditNoteOperation, async ({ ctx, body }) =>
    serializeCreditNote(await previewCreditNote({ ctx, input: body }), ctx.livemode, { preview: true }),
  ),
  handle(getCreditNoteOperation, async ({ ctx, params }) => serializeCreditNote(await getCreditNote({ ctx, input: { id: params.credit_note_id } }), ctx.livemode)),
  handle(voidCreditNoteOperation, async ({ ctx, params }) => serializeCreditNote(await voidCreditNote({ ctx, input: { id: params.credit_note_id } }), ctx.livemode)),
  handle(getCreditNotePdfOperation, async ({ ctx, params }) => creditNotePdf({ ctx, input: { id: params.credit_note_id } })),
];
