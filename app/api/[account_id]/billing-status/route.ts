import { handle, routeHandlers } from "@/lib/api/handler";
import { getBillingStatusOperation, updateBillingStatusOperation } from "@/lib/billing-status/operations";
import { getBillingStatus, updateBillingStatus } from "@/lib/billing-status/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getBillingStatusOperation, ({ ctx }) => getBillingStatus({ ctx, input: {} })),
  POST: handle(updateBillingStatusOperation, ({ ctx, body }) => updateBillingStatus({ ctx, input: body })),
});
