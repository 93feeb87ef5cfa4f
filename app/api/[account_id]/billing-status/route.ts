import { handle, routeHandlers } from "@/lib/api/handler";
import { getBillingStatusOperation } from "@/lib/billing-status/operations";
import { getBillingStatus } from "@/lib/billing-status/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getBillingStatusOperation, ({ ctx }) => getBillingStatus({ ctx, input: {} })),
});
