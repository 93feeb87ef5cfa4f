import type { z } from "zod";
import { handleExport } from "@/lib/api/export";
import { handle } from "@/lib/api/handler";
import type { ServiceContext } from "@/lib/context";
import type { PaymentIntentListQuery } from "./schema";
import { envelope } from "@/lib/api/pagination";
import {
  cancelPaymentIntentOperation,
  capturePaymentIntentOperation,
  confirmPaymentIntentOperation,
  createPaymentIntentOperation,
  getPaymentIntentOperation,
  getPaymentOperation,
  listPaymentIntentsOperation,
  exportPaymentIntentsOperation,
  listPaymentsOperation,
} from "./operations";
import { serializePayment, serializePaymentIntent } from "./serialize";
import {
  cancelPaymentIntent,
  capturePaymentIntent,
  createPaymentIntent,
  getPaymentIntent,
  listPaymentIntents,
} from "./service";
import { confirmPaymentIntent } from "./confirm";
import { getPayment, listPayments } from "./payments";

/** A page of the payment intents list, as the list answers it (also an export's batch). */
async function paymentIntentPage({ ctx, query }: { ctx: ServiceContext; query: z.output<typeof PaymentIntentListQuery> }) {
  const { rows, ...info } = await listPaymentIntents({ ctx, input: query });
  return envelope(rows.map((row) => serializePaymentIntent(row, ctx.livemode)), info);
}

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const paymentHandlers = [
  handle(listPaymentIntentsOperation, paymentIntentPage),
  handleExport(exportPaymentIntentsOperation, "payment-intents", paymentIntentPage),
  handle(createPaymentIntentOperation, async ({ ctx, body }) =>
    serializePaymentIntent(await createPaymentIntent({ ctx, input: body }), ctx.livemode),
  ),
  handle(getPaymentIntentOperation, async ({ ctx, params }) =>
    serializePaymentIntent(await getPaymentIntent({ ctx, input: { id: params.payment_intent_id } }), ctx.livemode),
  ),
  handle(confirmPaymentIntentOperation, async ({ ctx, params, body }) =>
    serializePaymentIntent(
      await confirmPaymentIntent({ ctx, input: { id: params.payment_intent_id, paymentMethod: body.payment_method } }),
      ctx.livemode,
    ),
  ),
  handle(capturePaymentIntentOperation, async ({ ctx, params, body }) =>
    serializePaymentIntent(
      await capturePaymentIntent({ ctx, input: { id: params.payment_intent_id, amountToCapture: body.amount_to_capture } }),
      ctx.livemode,
    ),
  ),
  handle(cancelPaymentIntentOperation, async ({ ctx, params }) =>
    serializePaymentIntent(await cancelPaymentIntent({ ctx, input: { id: params.payment_intent_id } }), ctx.livemode),
  ),
  handle(listPaymentsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listPayments({ ctx, input: query });
    return envelope(rows.map((row) => serializePayment(row, ctx.livemode)), info);
  }),
  handle(getPaymentOperation, async ({ ctx, params }) =>
    serializePayment(await getPayment({ ctx, input: { id: params.payment_id } }), ctx.livemode),
  ),
];
