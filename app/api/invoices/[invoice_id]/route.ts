import { handle, routeHandlers } from "@/lib/api/handler";
import { getInvoiceOperation } from "@/lib/invoices/operations";
import { serializeInvoice } from "@/lib/invoices/serialize";
import { getInvoice } from "@/lib/invoices/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getInvoiceOperation, async ({ ctx, params }) =>
    serializeInvoice(await getInvoice({ ctx, input: { id: params.invoice_id } }), ctx.livemode),
  ),
});
