import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import {
  createMeterOperation,
  deactivateMeterOperation,
  getMeterOperation,
  listMetersOperation,
  reactivateMeterOperation,
  updateMeterOperation,
} from "./operations";
import { serializeMeter } from "./serialize";
import { createMeter, getMeter, listMeters, setMeterActive, updateMeter } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const meterHandlers = [
  handle(listMetersOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listMeters({ ctx, input: query });
    return envelope(rows.map((row) => serializeMeter(row, ctx.livemode)), info);
  }),
  handle(createMeterOperation, async ({ ctx, body }) => serializeMeter(await createMeter({ ctx, input: body }), ctx.livemode)),
  handle(getMeterOperation, async ({ ctx, params }) =>
    serializeMeter(await getMeter({ ctx, input: { id: params.meter_id } }), ctx.livemode),
  ),
  handle(updateMeterOperation, async ({ ctx, params, body }) =>
    serializeMeter(await updateMeter({ ctx, input: { id: params.meter_id, changes: body } }), ctx.livemode),
  ),
  handle(deactivateMeterOperation, async ({ ctx, params }) =>
    serializeMeter(await setMeterActive({ ctx, input: { id: params.meter_id, active: false } }), ctx.livemode),
  ),
  handle(reactivateMeterOperation, async ({ ctx, params }) =>
    serializeMeter(await setMeterActive({ ctx, input: { id: params.meter_id, active: true } }), ctx.livemode),
  ),
];
