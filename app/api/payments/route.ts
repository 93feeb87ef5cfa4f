import { envelope } from "@/lib/api/pagination";
import { handle, routeHandlers } from "@/lib/api/handler";
import { listPaymentsOperation } from "@/lib/payments/operations";
import { serializePayment } from "@/lib/payments/serialize";
import { listPayments } from "@/lib/payments/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listPaymentsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listPayments({ ctx, input: query });
    return envelope(rows.map((row) => serializePayment(row, ctx.livemode)), info);
  }),
});
