import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { serializeSubscription } from "@/lib/subscriptions/serialize";
import {
  applyChangeRequestOperation,
  cancelChangeRequestOperation,
  changePlanOperation,
  createChangeRequestOperation,
  getChangeRequestOperation,
  listChangeRequestsOperation,
} from "./operations";
import { serializeChangeRequest } from "./serialize";
import {
  cancelChangeRequest,
  changePlan,
  createChangeRequest,
  getChangeRequest,
  listChangeRequests,
} from "./service";
import { applyChangeRequest } from "./apply";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const subscriptionChangeHandlers = [
  handle(createChangeRequestOperation, async ({ ctx, params, body }) =>
    serializeChangeRequest(
      await createChangeRequest({
        ctx,
        input: {
          subscriptionId: params.subscription_id,
          steps: body.steps,
          effective: body.effective,
          prorationBehavior: body.proration_behavior,
          metadata: body.metadata,
        },
      }),
      ctx.livemode,
    ),
  ),
  handle(listChangeRequestsOperation, async ({ ctx, params, query }) => {
    const { items, ...info } = await listChangeRequests({ ctx, input: { ...query, subscriptionId: params.subscription_id } });
    return envelope(items.map((item) => serializeChangeRequest(item, ctx.livemode)), info);
  }),
  handle(getChangeRequestOperation, async ({ ctx, params }) =>
    serializeChangeRequest(
      await getChangeRequest({ ctx, input: { subscriptionId: params.subscription_id, id: params.change_request_id } }),
      ctx.livemode,
    ),
  ),
  handle(applyChangeRequestOperation, async ({ ctx, params, body }) =>
    serializeChangeRequest(
      await applyChangeRequest({
        ctx,
        input: {
          subscriptionId: params.subscription_id,
          id: params.change_request_id,
          paymentMethod: body.payment_method,
          sandboxFailStep: body.sandbox_fail_step,
        },
      }),
      ctx.livemode,
    ),
  ),
  handle(cancelChangeRequestOperation, async ({ ctx, params }) =>
    serializeChangeRequest(
      await cancelChangeRequest({ ctx, input: { subscriptionId: params.subscription_id, id: params.change_request_id } }),
      ctx.livemode,
    ),
  ),
  handle(changePlanOperation, async ({ ctx, params, body }) =>
    serializeSubscription(
      await changePlan({
        ctx,
        input: { subscriptionId: params.subscription_id, price: body.price, quantity: body.quantity, paymentMethod: body.payment_method },
      }),
      ctx.livemode,
    ),
  ),
];
