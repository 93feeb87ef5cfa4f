import { handle, routeHandlers } from "@/lib/api/handler";
import { voidInvoiceOperation } from "@/lib/invoices/operations";
import { serializeInvoice } from "@/lib/invoices/serialize";
import { voidInvoice } from "@/lib/invoices/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(voidInvoiceOperation, async ({ ctx, params }) =>
    serializeInvoice(await voidInvoice({ ctx, input: { id: params.invoice_id } }), ctx.livemode),
  ),
});
