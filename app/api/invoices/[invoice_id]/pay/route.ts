import { handle, routeHandlers } from "@/lib/api/handler";
import { payInvoiceOperation } from "@/lib/invoices/operations";
import { serializeInvoice } from "@/lib/invoices/serialize";
import { payInvoice } from "@/lib/invoices/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(payInvoiceOperation, async ({ ctx, params, body }) =>
    serializeInvoice(await payInvoice({ ctx, input: { id: params.invoice_id, payment: body } }), ctx.livemode),
  ),
});
