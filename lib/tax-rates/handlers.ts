import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { createTaxRateOperation, getTaxRateOperation, listTaxRatesOperation, updateTaxRateOperation } from "./operations";
import { serializeTaxRate } from "./serialize";
import { createTaxRate, getTaxRate, listTaxRates, updateTaxRate } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const taxRateHandlers = [
  handle(listTaxRatesOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listTaxRates({ ctx, input: query });
    return envelope(rows.map((row) => serializeTaxRate(row, ctx.livemode)), info);
  }),
  handle(createTaxRateOperation, async ({ ctx, body }) => serializeTaxRate(await createTaxRate({ ctx, input: body }), ctx.livemode)),
  handle(getTaxRateOperation, async ({ ctx, params }) => serializeTaxRate(await getTaxRate({ ctx, input: { id: params.tax_rate_id } }), ctx.livemode)),
  handle(updateTaxRateOperation, async ({ ctx, params, body }) =>
    serializeTaxRate(await updateTaxRate({ ctx, input: { id: params.tax_rate_id, changes: body } }), ctx.livemode),
  ),
];
