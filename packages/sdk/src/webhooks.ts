import { Webhook, WebhookVerificationError as StandardWebhookError } from "standardwebhooks";
import type { components } from "./generated/schema.ts";

/** A webhook body, by event type: `event.type === "invoice.paid"` narrows `event.data.object` to Invoice. */
export type WebhookEvent = components["schemas"]["WebhookEvent"];
export type WebhookEventType = WebhookEvent["type"];
export type WebhookEventOf<Type extends WebhookEventType> = Extract<WebhookEvent, { type: Type }>;

/** Request headers as a framework gives them: a Fetch `Headers` or Node's `IncomingHttpHeaders`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** The delivery is not authentic: missing headers, no matching signature, or a timestamp off by more than 5 minutes. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

const STANDARD_HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;

/**
 * Verifies a delivery by the Standard Webhooks scheme (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`: HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed with the endpoint's
 * `whsec_…` secret, timestamps within 5 minutes) and returns the event. `rawBody` must be the bytes
 * as received, before any JSON parsing. Throws WebhookVerificationError otherwise.
 */
export function verify(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
  const body = typeof rawBody === "string" ? rawBody : new TextDecoder().decode(rawBody);
  let event: unknown;
  try {
    event = new Webhook(secret).verify(body, standardHeaders(headers));
  } catch (error) {
    if (error instanceof StandardWebhookError || error instanceof SyntaxError) throw new WebhookVerificationError(error.message);
    throw error;
  }
  if (typeof event !== "object" || event === null || !("type" in event)) throw new WebhookVerificationError("The body is not an event.");
  // Signed by the service: the body is one of the document's webhook events.
  return event as WebhookEvent;
}

function standardHeaders(headers: WebhookHeaders): Record<string, string> {
  const read = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    return Array.isArray(value) ? value.join(" ") : value;
  };
  const found: Record<string, string> = {};
  for (const name of STANDARD_HEADERS) {
    const value = read(name);
    if (value) found[name] = value;
  }
  return found;
}

export const webhooks = { verify };
