import { handle, routeHandlers } from "@/lib/api/handler";
import { markInvoiceUncollectibleOperation } from "@/lib/invoices/operations";
import { serializeInvoice } from "@/lib/invoices/serialize";
import { markInvoiceUncollectible } from "@/lib/invoices/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(markInvoiceUncollectibleOperation, async ({ ctx, params }) =>
    serializeInvoice(await markInvoiceUncollectible({ ctx, input: { id: params.invoice_id } }), ctx.livemode),
  ),
});
