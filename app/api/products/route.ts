import { envelope } from "@/lib/api/pagination";
import { handle, routeHandlers } from "@/lib/api/handler";
import { createProductOperation, listProductsOperation } from "@/lib/products/operations";
import { serializeProduct } from "@/lib/products/serialize";
import { createProduct, listProducts } from "@/lib/products/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listProductsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listProducts({ ctx, input: query });
    return envelope(rows.map((row) => serializeProduct(row, ctx.livemode)), info);
  }),
  POST: handle(createProductOperation, async ({ ctx, body }) =>
    serializeProduct(await createProduct({ ctx, input: body }), ctx.livemode),
  ),
});
