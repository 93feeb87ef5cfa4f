import { envelope } from "@/lib/api/pagination";
import { handle, routeHandlers } from "@/lib/api/handler";
import { createPriceOperation, listPricesOperation } from "@/lib/prices/operations";
import { serializePrice } from "@/lib/prices/serialize";
import { createPrice, listPrices } from "@/lib/prices/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listPricesOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listPrices({ ctx, input: query });
    return envelope(rows.map((row) => serializePrice(row, ctx.livemode)), info);
  }),
  POST: handle(createPriceOperation, async ({ ctx, body }) =>
    serializePrice(await createPrice({ ctx, input: body }), ctx.livemode),
  ),
});
