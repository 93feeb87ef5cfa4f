import { handle, routeHandlers } from "@/lib/api/handler";
import { deleteProductOperation, getProductOperation, updateProductOperation } from "@/lib/products/operations";
import { serializeProduct } from "@/lib/products/serialize";
import { deleteProduct, getProduct, updateProduct } from "@/lib/products/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getProductOperation, async ({ ctx, params }) =>
    serializeProduct(await getProduct({ ctx, input: { id: params.product_id } }), ctx.livemode),
  ),
  POST: handle(updateProductOperation, async ({ ctx, params, body }) =>
    serializeProduct(await updateProduct({ ctx, input: { id: params.product_id, changes: body } }), ctx.livemode),
  ),
  DELETE: handle(deleteProductOperation, async ({ ctx, params }) => {
    const { id } = await deleteProduct({ ctx, input: { id: params.product_id } });
    return { id, object: "product" as const, deleted: true as const };
  }),
});
