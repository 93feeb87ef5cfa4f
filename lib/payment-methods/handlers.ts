import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { attachPaymentMethodOperation, detachPaymentMethodOperation, listPaymentMethodsOperation, updatePaymentMethodOperation } from "./operations";
import { serializePaymentMethod } from "./serialize";
import { attachPaymentMethod, detachPaymentMethod, listPaymentMethods, updatePaymentMethod } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts is generated from lib/server/operations-index.ts). */
export const paymentMethodHandlers = [
  handle(listPaymentMethodsOperation, async ({ ctx, params }) => {
    const rows = await listPaymentMethods({ ctx, input: { customerId: params.customer_id } });
    return envelope(
      rows.map((row) => serializePaymentMethod(row, ctx.livemode)),
      { total: rows.length, hasMore: false },
    );
  }),
  handle(attachPaymentMethodOperation, async ({ ctx, params, body }) =>
    serializePaymentMethod(await attachPaymentMethod({ ctx, input: { customerId: params.customer_id, processorPaymentMethod: body.processor_payment_method } }), ctx.livemode),
  ),
  handle(detachPaymentMethodOperation, async ({ ctx, params }) =>
    serializePaymentMethod(await detachPaymentMethod({ ctx, input: { customerId: params.customer_id, id: params.payment_method_id } }), ctx.livemode),
  ),
  handle(updatePaymentMethodOperation, async ({ ctx, params, body }) =>
    serializePaymentMethod(
      await updatePaymentMethod({
        ctx,
        input: { customerId: params.customer_id, id: params.payment_method_id, changes: { metadata: body.metadata, expMonth: body.card?.exp_month, expYear: body.card?.exp_year } },
      }),
      ctx.livemode,
    ),
  ),
];
