import { handle, routeHandlers } from "@/lib/api/handler";
import { removeInvoiceLineOperation } from "@/lib/invoices/operations";
import { serializeInvoice } from "@/lib/invoices/serialize";
import { removeInvoiceLine } from "@/lib/invoices/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  DELETE: handle(removeInvoiceLineOperation, async ({ ctx, params }) =>
    serializeInvoice(
      await removeInvoiceLine({ ctx, input: { invoiceId: params.invoice_id, lineId: params.line_id } }),
      ctx.livemode,
    ),
  ),
});
