import type { z } from "zod";
import { EXPORT_TEXT_BATCH, handleExport } from "@/lib/api/export";
import { handle } from "@/lib/api/handler";
import type { ServiceContext } from "@/lib/context";
import type { EventListQuery } from "./schema";
import { eventTypeCatalogue } from "./event-types";
import { eventListPage } from "./list-page";
import {
  getEventFullOperation,
  getEventOperation,
  listEventDeliveriesOperation,
  listEventTypesOperation,
  listEventsOperation,
  exportEventsOperation,
} from "./operations";
import { serializeDelivery, serializeEvent } from "./serialize";
import { exportEventText, getEvent, getEventWithDeliveries } from "./service";
import { getEventAsDelivered } from "@/lib/webhooks/delivered";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const eventHandlers = [
  handle(listEventTypesOperation, async () => eventTypeCatalogue()),
  handle(listEventsOperation, async ({ ctx, query }) => eventListPage({ ctx, input: query })),
  handleExport(exportEventsOperation, "events", ({ ctx, query }: { ctx: ServiceContext; query: z.output<typeof EventListQuery> }) =>
    eventListPage({ ctx, input: query }),
    // Without an expansion, the batches' text comes from the database (exportEventText).
    ({ ctx, format, columns, query }) => {
      if (query.expand.size > 0) return undefined;
      const { event_id, aggregate_id, aggregate_type, event_type } = query;
      const filters = { event_id, aggregate_id, aggregate_type, event_type };
      const range = { gte: query["created[gte]"], lt: query["created[lt]"] };
      const encoding = format === "csv" ? { csv: columns } : ({ ndjson: true } as const);
      return (after) => exportEventText({ ctx, input: { format: encoding, filters, range, after, limit: EXPORT_TEXT_BATCH } });
    },
  ),
  handle(getEventOperation, async ({ ctx, params }) =>
    serializeEvent(await getEvent({ ctx, input: { id: params.event_id } })),
  ),
  handle(listEventDeliveriesOperation, async ({ ctx, params }) => {
    const { deliveries } = await getEventWithDeliveries({ ctx, input: { id: params.event_id } });
    return deliveries.map(serializeDelivery);
  }),
  handle(getEventFullOperation, async ({ ctx, params }) => {
    const full = await getEventAsDelivered({ ctx, input: { id: params.event_id } });
    return {
      event: serializeEvent(full.event),
      deliveries: full.deliveries.map(serializeDelivery),
      webhook: {
        body: full.body,
        requests: full.requests.map((request) => ({ delivery_id: request.deliveryId, attempt: request.attempt, headers: request.headers })),
      },
    };
  }),
];
