import type { z } from "zod";
import { handleExport } from "@/lib/api/export";
import { handle } from "@/lib/api/handler";
import type { ServiceContext } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { cancelUsageEvent } from "./cancel";
import { ingestOneUsageEvent } from "./group-commit";
import { ingestUsageEvents } from "./ingest";
import {
  cancelUsageEventOperation,
  createUsageEventBatchOperation,
  createUsageEventOperation,
  getCustomerUsageOperation,
  getMeterSummariesOperation,
  listMeterUsageEventsOperation,
  exportMeterUsageEventsOperation,
} from "./operations";
import { decodeUsageEventKey, encodeUsageEventKey, latestUsageEvents } from "./latest";
import type { MeterUsageEventsQuery } from "./schema";
import { customerUsage, meterSummaries } from "./read";
import { serializeUsageEvent } from "./serialize";

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/**
 * The latest usage events of a meter and customer, as the list answers them; an export's batch
 * also passes the keyset to start after (`starting_after`, not a query parameter of the list) and
 * gets whether more follow and the keyset of its last event.
 */
async function usageEventPage({ ctx, query, params }: { ctx: ServiceContext; query: z.output<typeof MeterUsageEventsQuery> & { starting_after?: string }; params: Record<string, string> }) {
  const rows = await latestUsageEvents({
    ctx,
    input: {
      meterId: params.meter_id!,
      customerId: query.customer,
      // One more than the page: whether more follow, without a count.
      limit: query.limit + 1,
      from: query["timestamp[gte]"],
      before: query["timestamp[lt]"],
      after: query.starting_after === undefined ? undefined : decodeUsageEventKey(query.starting_after),
    },
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return { items: page.map(serializeUsageEvent), has_more: rows.length > query.limit, after: last ? encodeUsageEventKey(last) : undefined };
}

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const usageHandlers = [
  handle(createUsageEventOperation, async ({ ctx, body }) => {
    const result = await ingestOneUsageEvent(ctx, body);
    if (result.status !== "invalid") return result;
    // One event: its reason is the problem's (a conflict is a 409, any other reason a 422).
    const code = result.error?.code ?? "invalid_event";
    const message = result.error?.message ?? "Invalid usage event.";
    if (code === "usage_event_conflict") throw new ServiceError("conflict", message, { error_code: code });
    throw new ServiceError("validation", message, { error_code: code, errors: [{ field: fieldOf(code), message }] });
  }),
  handle(createUsageEventBatchOperation, async ({ ctx, body }) => ({
    object: "list" as const,
    items: await ingestUsageEvents(ctx, body.events),
  })),
  handle(cancelUsageEventOperation, async ({ ctx, params }) => {
    const { event, eventName, cancelled } = await cancelUsageEvent({ ctx, input: { identifier: params.identifier } });
    return {
      object: "usage_event" as const,
      identifier: event.identifier,
      event_name: eventName,
      meter: event.meterId,
      customer: event.customerId,
      timestamp: seconds(event.ts),
      cancelled: cancelled.toISOString(),
    };
  }),
  handle(getCustomerUsageOperation, async ({ ctx, params, query }) => {
    const usage = await customerUsage({ ctx, input: { customerId: params.customer_id, meterId: query.meter } });
    return {
      object: "customer_usage" as const,
      meter: usage.meter.id,
      customer: usage.customerId,
      period_start: usage.period.start.toISOString(),
      period_end: usage.period.end.toISOString(),
      aggregation: usage.meter.aggregation,
      value: usage.value,
    };
  }),
  handle(getMeterSummariesOperation, async ({ ctx, params, query }) => {
    const summaries = await meterSummaries({
      ctx,
      input: {
        meterId: params.meter_id,
        customerId: query.customer,
        start: query.start === undefined ? undefined : new Date(query.start),
        end: query.end === undefined ? undefined : new Date(query.end),
        groupBy: query.group_by,
      },
    });
    return {
      object: "list" as const,
      meter: summaries.meter.id,
      customer: summaries.customerId,
      items: summaries.items.map((b) => ({ start: b.start.toISOString(), end: b.end.toISOString(), value: b.value })),
    };
  }),
  handle(listMeterUsageEventsOperation, async ({ ctx, params, query }) => {
    const { items } = await usageEventPage({ ctx, query, params });
    return { object: "list" as const, items };
  }),
  handleExport(exportMeterUsageEventsOperation, "usage-events", usageEventPage),
];

function fieldOf(code: string): string {
  if (code === "unknown_event_name") return "event_name";
  if (code === "unknown_customer") return "customer";
  if (code.startsWith("timestamp") || code === "period_invoiced") return "timestamp";
  if (code === "invalid_value") return "payload";
  return "event";
}
