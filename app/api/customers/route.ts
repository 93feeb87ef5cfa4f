import { envelope } from "@/lib/api/pagination";
import { handle, routeHandlers } from "@/lib/api/handler";
import { createCustomerOperation, listCustomersOperation } from "@/lib/customers/operations";
import { serializeCustomer } from "@/lib/customers/serialize";
import { createCustomer, listCustomers } from "@/lib/customers/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(listCustomersOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listCustomers({ ctx, input: query });
    const customFields = query.expand.has("custom_fields");
    return envelope(rows.map((row) => serializeCustomer(row, ctx.livemode, { customFields })), info);
  }),
  POST: handle(createCustomerOperation, async ({ ctx, query, body }) => {
    const row = await createCustomer({ ctx, input: body });
    return serializeCustomer(row, ctx.livemode, { customFields: query.expand.has("custom_fields") });
  }),
});
