import type { WebhookEventBody } from "@/lib/events-api/payloads";
import type { EventRow } from "@/lib/events-api/serialize";

/** Top-level fields whose values differ, with their previous values (absent before → null). */
export function previousAttributes(
  previous: Record<string, unknown>,
  current: Record<string, unknown>,
): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(previous), ...Object.keys(current)])) {
    if (JSON.stringify(previous[key]) !== JSON.stringify(current[key])) changed[key] = previous[key] ?? null;
  }
  return changed;
}

/**
 * The webhook body of the spec. `previous_attributes` is present on every event that changes an
 * existing entity (it has previous_data), holding only the changed top-level fields.
 */
export function webhookPayload(event: EventRow, livemode: boolean): WebhookEventBody {
  // Typed by the event's type: its stored state is the aggregate's, as lib/events-api/serialize.ts says.
  return {
    id: event.id,
    object: "event" as const,
    type: event.type,
    sequence: event.sequence,
    created: Math.floor(event.created.getTime() / 1000),
    livemode,
    // Sample events sent with "send test event" by type (lib/webhooks/test-events.ts).
    ...(event.metadata.test === true ? { test: true as const } : {}),
    data: {
      object: event.data,
      ...(event.previousData ? { previous_attributes: previousAttributes(event.previousData, event.data) } : {}),
    },
  } as WebhookEventBody;
}

/**
 * The exact bytes every attempt of the event POSTs (and the event page shows): one serialization,
 * so the page cannot drift from what receivers get.
 */
export function webhookBody(event: EventRow, livemode: boolean): Buffer {
  return Buffer.from(JSON.stringify(webhookPayload(event, livemode)));
}
