import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import {
  createProductOperation,
  deleteProductOperation,
  getProductOperation,
  listProductsOperation,
  updateProductOperation,
} from "./operations";
import { serializeProduct } from "./serialize";
import { createProduct, deleteProduct, getProduct, listProducts, updateProduct } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const productHandlers = [
  handle(listProductsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listProducts({ ctx, input: query });
    return envelope(rows.map((row) => serializeProduct(row, ctx.livemode)), info);
  }),
  handle(createProductOperation, async ({ ctx, body }) =>
    serializeProduct(await createProduct({ ctx, input: body }), ctx.livemode),
  ),
  handle(getProductOperation, async ({ ctx, params }) =>
    serializeProduct(await getProduct({ ctx, input: { id: params.product_id } }), ctx.livemode),
  ),
  handle(updateProductOperation, async ({ ctx, params, body }) =>
    serializeProduct(await updateProduct({ ctx, input: { id: params.product_id, changes: body } }), ctx.livemode),
  ),
  handle(deleteProductOperation, async ({ ctx, params }) => {
    const { id } = await deleteProduct({ ctx, input: { id: params.product_id } });
    return { id, object: "product" as const, deleted: true as const };
  }),
];
