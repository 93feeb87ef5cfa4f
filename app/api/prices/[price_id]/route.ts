import { handle, routeHandlers } from "@/lib/api/handler";
import { deletePriceOperation, getPriceOperation, updatePriceOperation } from "@/lib/prices/operations";
import { serializePrice } from "@/lib/prices/serialize";
import { deletePrice, getPrice, updatePrice } from "@/lib/prices/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getPriceOperation, async ({ ctx, params }) =>
    serializePrice(await getPrice({ ctx, input: { id: params.price_id } }), ctx.livemode),
  ),
  POST: handle(updatePriceOperation, async ({ ctx, params, body }) =>
    serializePrice(await updatePrice({ ctx, input: { id: params.price_id, changes: body } }), ctx.livemode),
  ),
  DELETE: handle(deletePriceOperation, async ({ ctx, params }) => {
    const { id } = await deletePrice({ ctx, input: { id: params.price_id } });
    return { id, object: "price" as const, deleted: true as const };
  }),
});
