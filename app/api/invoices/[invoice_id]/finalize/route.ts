import { handle, routeHandlers } from "@/lib/api/handler";
import { finalizeInvoiceOperation } from "@/lib/invoices/operations";
import { serializeInvoice } from "@/lib/invoices/serialize";
import { finalizeInvoice } from "@/lib/invoices/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(finalizeInvoiceOperation, async ({ ctx, params }) =>
    serializeInvoice(await finalizeInvoice({ ctx, input: { id: params.invoice_id } }), ctx.livemode),
  ),
});
