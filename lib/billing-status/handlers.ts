import { handle } from "@/lib/api/handler";
import { getBillingStatusOperation, updateBillingStatusOperation } from "./operations";
import { getBillingStatus, updateBillingStatus } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const billingStatusHandlers = [
  handle(getBillingStatusOperation, ({ ctx }) => getBillingStatus({ ctx, input: {} })),
  handle(updateBillingStatusOperation, ({ ctx, body }) => updateBillingStatus({ ctx, input: body })),
];
