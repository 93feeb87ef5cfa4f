import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { getEmailOperation, listEmailsOperation, previewEmailOperation, previewEmailTemplateOperation, sendInvoiceOperation, sendTestEmailOperation } from "./operations";
import { serializeEmail } from "./serialize";
import { getEmail, listEmails, previewEmail, previewEmailTemplate, sendInvoice, sendTestEmail } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const emailHandlers = [
  handle(listEmailsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listEmails({ ctx, input: query });
    return envelope(rows.map((row) => serializeEmail(row, ctx.livemode)), info);
  }),
  handle(getEmailOperation, async ({ ctx, params }) => serializeEmail(await getEmail({ ctx, input: { id: params.email_id } }), ctx.livemode)),
  handle(previewEmailOperation, async ({ ctx, params }) => {
    const { row, html, text } = await previewEmail({ ctx, input: { id: params.email_id } });
    return { object: "email_preview" as const, id: row.id, subject: row.subject, html, text };
  }),
  handle(previewEmailTemplateOperation, async ({ ctx, params, query }) => ({
    object: "email_template_preview" as const,
    ...(await previewEmailTemplate({ ctx, input: { type: params.type, locale: query.locale } })),
  })),
  handle(sendTestEmailOperation, async ({ ctx, body }) => serializeEmail(await sendTestEmail({ ctx, input: body }), ctx.livemode)),
  handle(sendInvoiceOperation, async ({ ctx, params }) => serializeEmail(await sendInvoice({ ctx, input: { id: params.invoice_id } }), ctx.livemode)),
];
