import { z } from "zod";
import type { Verb } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import type { DeliveryRow } from "@/lib/events-api/serialize";
import { getEvent } from "@/lib/events-api/service";
import { deliverEventTo } from "./deliveries";
import { getWebhookEndpoint } from "./endpoints";

export const ResendEventInput = z
  .strictObject({
    endpoint_id: z
      .string()
      .min(1)
      .max(100)
      .meta({ description: "The webhook endpoint (`we_…`) of this account to deliver the event to." }),
  })
  .meta({ id: "ResendEventInput" });

/**
 * A new delivery of an existing event to one chosen endpoint, signed and retried like any other
 * (the receiver sees the event's usual `webhook-id`, so it can skip what it already has). The
 * merchant chose the endpoint, so its subscription list is not consulted; a disabled endpoint
 * receives nothing, so it is a conflict rather than a delivery that would never leave.
 */
export async function resendEvent({ ctx, input }: Verb<{ eventId: string; endpointId: string }>): Promise<DeliveryRow> {
  const event = await getEvent({ ctx, input: { id: input.eventId } });
  const endpoint = await getWebhookEndpoint({ ctx, input: { id: input.endpointId } });
  if (!endpoint.enabled) {
    throw new ServiceError("conflict", "The endpoint is disabled: enable it before resending events to it.");
  }
  return deliverEventTo({ ctx, input: { eventId: event.id, endpointId: endpoint.id } });
}
