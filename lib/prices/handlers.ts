import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import {
  createPriceOperation,
  deletePriceOperation,
  getPriceOperation,
  listPricesOperation,
  updatePriceOperation,
} from "./operations";
import { serializePrice } from "./serialize";
import { createPrice, deletePrice, getPrice, listPrices, updatePrice } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const priceHandlers = [
  handle(listPricesOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listPrices({ ctx, input: query });
    return envelope(rows.map((row) => serializePrice(row, ctx.livemode)), info);
  }),
  handle(createPriceOperation, async ({ ctx, body }) =>
    serializePrice(await createPrice({ ctx, input: body }), ctx.livemode),
  ),
  handle(getPriceOperation, async ({ ctx, params }) =>
    serializePrice(await getPrice({ ctx, input: { id: params.price_id } }), ctx.livemode),
  ),
  handle(updatePriceOperation, async ({ ctx, params, body }) =>
    serializePrice(await updatePrice({ ctx, input: { id: params.price_id, changes: body } }), ctx.livemode),
  ),
  handle(deletePriceOperation, async ({ ctx, params }) => {
    const { id } = await deletePrice({ ctx, input: { id: params.price_id } });
    return { id, object: "price" as const, deleted: true as const };
  }),
];
