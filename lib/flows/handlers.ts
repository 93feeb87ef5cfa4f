import { handle } from "@/lib/api/handler";
import { previewInvoiceOperation } from "./operations";
import { previewUpcomingInvoice, serializeInvoicePreview } from "./upcoming-invoice";

export const flowHandlers = [
  handle(previewInvoiceOperation, async ({ ctx, body }) => serializeInvoicePreview(await previewUpcomingInvoice({ ctx, input: body }), ctx.livemode)),
];
