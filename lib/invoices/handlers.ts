import type { z } from "zod";
import { handleExport } from "@/lib/api/export";
import { handle } from "@/lib/api/handler";
import type { ServiceContext } from "@/lib/context";
import type { InvoiceListQuery } from "./schema";
import { envelope } from "@/lib/api/pagination";
import {
  addInvoiceLineOperation,
  createInvoiceOperation,
  finalizeInvoiceOperation,
  getInvoiceOperation,
  listInvoicesOperation,
  exportInvoicesOperation,
  markInvoiceUncollectibleOperation,
  payInvoiceOperation,
  removeInvoiceLineOperation,
  voidInvoiceOperation,
  getInvoicePdfOperation,
  getHostedInvoicePdfOperation,
  payHostedInvoiceOperation,
} from "./operations";
import { findHostedInvoice, invoicePdf, payHostedInvoice } from "./hosted";
import { newId } from "@/lib/ids";
import { serializeInvoice } from "./serialize";
import {
  createInvoice,
  finalizeInvoice,
  getInvoice,
  listInvoices,
} from "./service";
import { addInvoiceLine, removeInvoiceLine } from "./lines";
import { markInvoiceUncollectible, payInvoice, voidInvoice } from "./settle";

/** A page of the invoices list, as the list answers it (also an export's batch). */
async function invoicePage({ ctx, query }: { ctx: ServiceContext; query: z.output<typeof InvoiceListQuery> }) {
  const { items, ...info } = await listInvoices({ ctx, input: query });
  return envelope(items.map((item) => serializeInvoice(item, ctx.livemode)), info);
}

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const invoiceHandlers = [
  handle(listInvoicesOperation, invoicePage),
  handleExport(exportInvoicesOperation, "invoices", invoicePage),
  handle(createInvoiceOperation, async ({ ctx, body }) =>
    serializeInvoice(await createInvoice({ ctx, input: body }), ctx.livemode),
  ),
  handle(getInvoiceOperation, async ({ ctx, params }) =>
    serializeInvoice(await getInvoice({ ctx, input: { id: params.invoice_id } }), ctx.livemode),
  ),
  handle(addInvoiceLineOperation, async ({ ctx, params, body }) =>
    serializeInvoice(await addInvoiceLine({ ctx, input: { invoiceId: params.invoice_id, line: body } }), ctx.livemode),
  ),
  handle(removeInvoiceLineOperation, async ({ ctx, params }) =>
    serializeInvoice(
      await removeInvoiceLine({ ctx, input: { invoiceId: params.invoice_id, lineId: params.line_id } }),
      ctx.livemode,
    ),
  ),
  handle(finalizeInvoiceOperation, async ({ ctx, params }) =>
    serializeInvoice(await finalizeInvoice({ ctx, input: { id: params.invoice_id } }), ctx.livemode),
  ),
  handle(payInvoiceOperation, async ({ ctx, params, body }) =>
    serializeInvoice(await payInvoice({ ctx, input: { id: params.invoice_id, payment: body } }), ctx.livemode),
  ),
  handle(voidInvoiceOperation, async ({ ctx, params }) =>
    serializeInvoice(await voidInvoice({ ctx, input: { id: params.invoice_id } }), ctx.livemode),
  ),
  handle(markInvoiceUncollectibleOperation, async ({ ctx, params }) =>
    serializeInvoice(await markInvoiceUncollectible({ ctx, input: { id: params.invoice_id } }), ctx.livemode),
  ),
  handle(getInvoicePdfOperation, async ({ ctx, params, query }) => invoicePdf(await getInvoice({ ctx, input: { id: params.invoice_id } }), query.version)),
  handle(getHostedInvoicePdfOperation, async ({ params, query }) => invoicePdf((await findHostedInvoice(params.token)).found, query.version)),
  handle(payHostedInvoiceOperation, async ({ params, body, request }) => {
    // handle() has validated the correlation header when present.
    const correlationId = request.headers.get("x-correlation-id") ?? newId("request");
    const { paid, livemode } = await payHostedInvoice({ input: { token: params.token, paymentMethod: body.payment_method, correlationId } });
    return serializeInvoice(paid, livemode);
  }),
];
