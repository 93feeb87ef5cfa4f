import { handle, routeHandlers } from "@/lib/api/handler";
import { deliveryHealth } from "@/lib/webhooks/health";
import { accountHealthOperation } from "@/lib/webhooks/operations";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(accountHealthOperation, ({ ctx }) => deliveryHealth({ ctx, input: {} })),
});
