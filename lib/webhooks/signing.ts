import { createHmac } from "node:crypto";
import { signPayload } from "./signature";

/**
 * The secrets an endpoint signs with: the current one, and during a rotation's overlap the
 * previous one (both `whsec_…`).
 */
export type SigningSecrets = { current: string; previous: string | null };

const PREFIX = "whsec_";

/**
 * The HMAC key of a Standard Webhooks secret: the bytes its base64 part encodes. Node's base64
 * decoder also reads the URL-safe alphabet, so secrets made before the switch to standard base64
 * (`whsec_` + base64url of the same 32 random bytes) keep their key: their standard form is the
 * same bytes re-encoded (docs/receiving-webhooks.md, "Secrets made before…").
 */
export function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
}

/** `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` (standardwebhooks.com). */
export function standardSignature(secret: string, messageId: string, timestamp: number, body: Buffer): string {
  const mac = createHmac("sha256", standardKey(secret));
  mac.update(`${messageId}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest("base64")}`;
}

export type DeliveryMessage = {
  body: Buffer;
  eventId: string;
  eventType: string;
  deliveryId: string;
  attempt: number;
  /** When the request is sent: `webhook-timestamp` (receivers reject stale ones). */
  sentAt: Date;
};

/**
 * Every header of one delivery attempt: the spec's `X-Webhook-*` (unchanged: `sha256=` + hex HMAC
 * keyed with the whole current secret) and the Standard Webhooks trio. `webhook-id` is the event
 * id, so it is the same on every retry, manual retry and replay of one event (the standard's
 * idempotency key, and the spec's "deduplicate by event ID"). During a rotation's overlap
 * `webhook-signature` carries one signature per valid secret, newest first, and the spec's
 * single-valued header keeps the current secret's, with the previous one's beside it in
 * `X-Webhook-Signature-Previous`.
 */
export function deliveryHeaders(secrets: SigningSecrets, message: DeliveryMessage): Record<string, string> {
  const timestamp = Math.floor(message.sentAt.getTime() / 1000);
  const valid = secrets.previous ? [secrets.current, secrets.previous] : [secrets.current];
  return {
    "Content-Type": "application/json",
    "User-Agent": "BillingService-Webhooks/1.0",
    "X-Webhook-Signature": signPayload(secrets.current, message.body),
    ...(secrets.previous ? { "X-Webhook-Signature-Previous": signPayload(secrets.previous, message.body) } : {}),
    "X-Webhook-Event-Id": message.eventId,
    "X-Webhook-Event-Type": message.eventType,
    "X-Webhook-Delivery-Id": message.deliveryId,
    "X-Webhook-Attempt": String(message.attempt),
    "webhook-id": message.eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": valid.map((secret) => standardSignature(secret, message.eventId, timestamp, message.body)).join(" "),
  };
}
