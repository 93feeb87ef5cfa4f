import type { z } from "zod";
import type { Delivery as DeliverySchema } from "@/lib/events/schema";
import type { DeliveryHealth as DeliveryHealthSchema, EndpointDeliveryHealth as EndpointDeliveryHealthSchema } from "@/lib/webhooks/health";
import type {
  RetryFailedResult as RetryFailedResultSchema,
  WebhookEndpoint as WebhookEndpointSchema,
  WebhookEndpointWithSecret as WebhookEndpointWithSecretSchema,
} from "@/lib/webhooks/schema";

/** The API's shapes, as sent over the wire (type-only imports: no server code reaches the client). */
export type WebhookEndpoint = z.output<typeof WebhookEndpointSchema>;
export type WebhookEndpointWithSecret = z.output<typeof WebhookEndpointWithSecretSchema>;
export type Delivery = z.output<typeof DeliverySchema>;
export type DeliveryStatus = Delivery["status"];
export type DeliveryHealth = z.output<typeof DeliveryHealthSchema>;
export type EndpointDeliveryHealth = z.output<typeof EndpointDeliveryHealthSchema>;
export type RetryFailedResult = z.output<typeof RetryFailedResultSchema>;

/** What the endpoint forms send: a description of "" is sent as null (cleared). */
export type EndpointFormValues = { url: string; description: string | null; events: string[] };
