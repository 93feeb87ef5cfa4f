import { envelope } from "@/lib/api/pagination";
import { handle, routeHandlers } from "@/lib/api/handler";
import { createInvoiceOperation, listInvoicesOperation } from "@/lib/invoices/operations";
import { serializeInvoice } from "@/lib/invoices/serialize";
import { createInvoice, listInvoices } from "@/lib/invoices/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listInvoicesOperation, async ({ ctx, query }) => {
    const { items, ...info } = await listInvoices({ ctx, input: query });
    return envelope(items.map((item) => serializeInvoice(item, ctx.livemode)), info);
  }),
  POST: handle(createInvoiceOperation, async ({ ctx, body }) =>
    serializeInvoice(await createInvoice({ ctx, input: body }), ctx.livemode),
  ),
});
