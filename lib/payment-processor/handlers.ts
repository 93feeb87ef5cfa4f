import { handle } from "@/lib/api/handler";
import { receiveProcessorEvent } from "./events";
import { connectPaymentProcessorOperation, disconnectPaymentProcessorOperation, getPaymentProcessorOperation, receiveProcessorEventOperation } from "./operations";
import { serializePaymentProcessor } from "./serialize";
import { connectPaymentProcessor, disconnectPaymentProcessor, getPaymentProcessor } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const paymentProcessorHandlers = [
  handle(getPaymentProcessorOperation, async ({ ctx }) => serializePaymentProcessor(ctx.accountId, await getPaymentProcessor({ ctx, input: {} }))),
  handle(connectPaymentProcessorOperation, async ({ ctx, body }) => serializePaymentProcessor(ctx.accountId, await connectPaymentProcessor({ ctx, input: body }))),
  handle(disconnectPaymentProcessorOperation, async ({ ctx }) => serializePaymentProcessor(ctx.accountId, await disconnectPaymentProcessor({ ctx, input: {} }))),
  handle(receiveProcessorEventOperation, async ({ params, request }) => {
    // The raw body: the signature covers its bytes, so it is read as text, never parsed first.
    const { duplicate } = await receiveProcessorEvent({ processor: params.processor, accountId: params.account, payload: await request.text(), headers: request.headers });
    return { received: true as const, duplicate };
  }),
];
