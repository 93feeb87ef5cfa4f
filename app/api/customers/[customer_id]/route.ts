import { handle, routeHandlers } from "@/lib/api/handler";
import {
  deleteCustomerOperation,
  getCustomerOperation,
  updateCustomerOperation,
} from "@/lib/customers/operations";
import { serializeCustomer } from "@/lib/customers/serialize";
import { deleteCustomer, getCustomer, updateCustomer } from "@/lib/customers/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getCustomerOperation, async ({ ctx, params, query }) => {
    const row = await getCustomer({ ctx, input: { id: params.customer_id } });
    return serializeCustomer(row, ctx.livemode, { customFields: query.expand.has("custom_fields") });
  }),
  POST: handle(updateCustomerOperation, async ({ ctx, params, query, body }) => {
    const row = await updateCustomer({ ctx, input: { id: params.customer_id, changes: body } });
    return serializeCustomer(row, ctx.livemode, { customFields: query.expand.has("custom_fields") });
  }),
  DELETE: handle(deleteCustomerOperation, async ({ ctx, params }) => {
    const { id } = await deleteCustomer({ ctx, input: { id: params.customer_id } });
    return { id, object: "customer" as const, deleted: true as const };
  }),
});
