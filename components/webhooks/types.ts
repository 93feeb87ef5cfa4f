import type { components } from "@/packages/sdk/src/generated/schema";
import { isEventType } from "@/lib/events/catalogue";

/** What an endpoint subscribes to: event types, or `*` for every type. */
export type EndpointEvent = components["schemas"]["WebhookEndpointCreateInput"]["events"][number];

export function isEndpointEvent(value: string): value is EndpointEvent {
  return value === "*" || isEventType(value);
}

/** What the endpoint forms send: a description of "" is sent as null (cleared). */
export type EndpointFormValues = { url: string; description: string | null; events: EndpointEvent[] };
