import { handle } from "@/lib/api/handler";
import { envelope } from "@/lib/api/pagination";
import { archiveAlertOperation, createAlertOperation, getAlertOperation, listAlertsOperation, listAlertTriggersOperation } from "./operations";
import { serializeAlert, serializeAlertTrigger } from "./serialize";
import { archiveAlert, createAlert, getAlert, listAlerts, listAlertTriggers } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const alertHandlers = [
  handle(createAlertOperation, async ({ ctx, body }) => serializeAlert(await createAlert({ ctx, input: body }), ctx.livemode)),
  handle(listAlertsOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listAlerts({ ctx, input: query });
    return envelope(rows.map((row) => serializeAlert(row, ctx.livemode)), info);
  }),
  handle(getAlertOperation, async ({ ctx, params }) => serializeAlert(await getAlert({ ctx, input: { id: params.alert_id } }), ctx.livemode)),
  handle(archiveAlertOperation, async ({ ctx, params }) => serializeAlert(await archiveAlert({ ctx, input: { id: params.alert_id } }), ctx.livemode)),
  handle(listAlertTriggersOperation, async ({ ctx, query }) => {
    const { rows, ...info } = await listAlertTriggers({ ctx, input: query });
    return envelope(rows.map(({ trigger, alert }) => serializeAlertTrigger(trigger, alert, ctx.livemode)), info);
  }),
];
