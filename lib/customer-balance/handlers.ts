import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { createCustomerBalanceTransactionOperation, listCustomerBalanceTransactionsOperation } from "./operations";
import { serializeBalanceTransaction } from "./serialize";
import { adjustCustomerBalance, listBalanceTransactions } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const customerBalanceHandlers = [
  handle(listCustomerBalanceTransactionsOperation, async ({ ctx, params, query }) => {
    const { rows, ...info } = await listBalanceTransactions({ ctx, input: { ...query, customerId: params.customer_id } });
    return envelope(rows.map((row) => serializeBalanceTransaction(row, ctx.livemode)), info);
  }),
  handle(createCustomerBalanceTransactionOperation, async ({ ctx, params, body }) =>
    serializeBalanceTransaction(await adjustCustomerBalance({ ctx, input: { customerId: params.customer_id, adjustment: body } }), ctx.livemode),
  ),
];
