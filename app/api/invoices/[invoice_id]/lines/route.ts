import { handle, routeHandlers } from "@/lib/api/handler";
import { addInvoiceLineOperation } from "@/lib/invoices/operations";
import { serializeInvoice } from "@/lib/invoices/serialize";
import { addInvoiceLine } from "@/lib/invoices/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(addInvoiceLineOperation, async ({ ctx, params, body }) =>
    serializeInvoice(await addInvoiceLine({ ctx, input: { invoiceId: params.invoice_id, line: body } }), ctx.livemode),
  ),
});
