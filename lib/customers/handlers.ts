import type { z } from "zod";
import { handleExport } from "@/lib/api/export";
import { handle } from "@/lib/api/handler";
import type { ServiceContext } from "@/lib/context";
import type { CustomerListQuery } from "./schema";
import { envelope } from "@/lib/api/pagination";
import { serializeDiscount } from "@/lib/discounts/serialize";
import {
  createCustomerOperation,
  deleteCustomerOperation,
  exportCustomersOperation,
  getCustomerOperation,
  listCustomersOperation,
  updateCustomerOperation,
} from "./operations";
import { serializeCustomer } from "./serialize";
import { createCustomer, deleteCustomer, getCustomerExpanded, listCustomers, updateCustomer } from "./service";

/** A page of the customers list, as the list answers it (also an export's batch). */
async function customerPage({ ctx, query }: { ctx: ServiceContext; query: z.output<typeof CustomerListQuery> }) {
  const { rows, ...info } = await listCustomers({ ctx, input: query });
  const customFields = query.expand.has("custom_fields");
  return envelope(rows.map((row) => serializeCustomer(row, ctx.livemode, { customFields })), info);
}

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const customerHandlers = [
  handle(listCustomersOperation, customerPage),
  handleExport(exportCustomersOperation, "customers", customerPage),
  handle(createCustomerOperation, async ({ ctx, query, body }) => {
    const row = await createCustomer({ ctx, input: body });
    return serializeCustomer(row, ctx.livemode, { customFields: query.expand.has("custom_fields") });
  }),
  handle(getCustomerOperation, async ({ ctx, params, query }) => {
    const { row, discount } = await getCustomerExpanded({ ctx, input: { id: params.customer_id, discount: query.expand.has("discount") } });
    const customer = serializeCustomer(row, ctx.livemode, { customFields: query.expand.has("custom_fields") });
    if (discount === undefined) return customer;
    return { ...customer, discount: discount && serializeDiscount(discount, ctx.livemode, ctx.now()) };
  }),
  handle(updateCustomerOperation, async ({ ctx, params, query, body }) => {
    const row = await updateCustomer({ ctx, input: { id: params.customer_id, changes: body } });
    return serializeCustomer(row, ctx.livemode, { customFields: query.expand.has("custom_fields") });
  }),
  handle(deleteCustomerOperation, async ({ ctx, params }) => {
    const { id } = await deleteCustomer({ ctx, input: { id: params.customer_id } });
    return { id, object: "customer" as const, deleted: true as const };
  }),
];
