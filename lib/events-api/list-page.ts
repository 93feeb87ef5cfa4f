import { z } from "zod";
import type { ListEnvelope } from "@/lib/api/pagination";
import { envelope } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { deliverySummaries } from "@/lib/webhooks/health";
import type { EventListItem, EventListQuery } from "./schema";
import { serializeEvent } from "./serialize";
import { listEvents } from "./service";

/**
 * One page of the events list as the API answers it: used by GET /{account_id}/events and by the
 * dashboard's events page, which renders the first page on the server.
 */
export async function eventListPage({
  ctx,
  input,
}: Verb<z.output<typeof EventListQuery>>): Promise<ListEnvelope<z.input<typeof EventListItem>>> {
  const { expand, event_id, aggregate_id, aggregate_type, event_type, ...page } = input;
  const filters = { event_id, aggregate_id, aggregate_type, event_type };
  const { rows, ...info } = await listEvents({ ctx, input: { filters, page } });
  const summaries = expand.has("delivery_summary")
    ? await deliverySummaries({ ctx, input: { eventIds: rows.map((row) => row.id) } })
    : null;
  const items = rows.map((row) => ({
    ...serializeEvent(row),
    ...(summaries ? { delivery_summary: summaries.get(row.id)! } : {}),
  }));
  return envelope(items, info);
}
