import { and, eq, inArray } from "drizzle-orm";
import { getDb } from "@/db/client";
import { webhookEndpoints } from "@/db/schema";
import type { Verb } from "@/lib/context";
import type { DeliveryRow, EventRow } from "@/lib/events-api/serialize";
import { getEventWithDeliveries } from "@/lib/events-api/service";
import { attemptHeaders } from "./attempt";
import { webhookBody } from "./payload";
import { previousSecretValid } from "./rotation";
import { requestHeaders } from "./send";

/** What a delivery's latest attempt sent: its number and every header (signatures masked). */
export type DeliveredRequest = { deliveryId: string; attempt: number; headers: Record<string, string> };

export type EventAsDelivered = {
  event: EventRow;
  deliveries: DeliveryRow[];
  /** The exact bytes every delivery of the event POSTs, as UTF-8 text. */
  body: string;
  requests: DeliveredRequest[];
};

const SIGNATURE_HEADERS = new Set(["x-webhook-signature", "x-webhook-signature-previous", "webhook-signature"]);
// Signatures are not secrets, but one rebuilt after a later rotation would be wrong: masked, with
// their scheme and count kept. The key below never signs anything anyone receives.
const MASK = "••••••••";
const PLACEHOLDER_KEY = "whsec_bWFza2VkLXNpZ25hdHVyZXMtbmV2ZXItc2VudA==";

export function maskSignatures(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) =>
      SIGNATURE_HEADERS.has(name.toLowerCase()) ? [name, value.replace(/(sha256=|v1,)\S+/g, `$1${MASK}`)] : [name, value],
    ),
  );
}

/**
 * An event with its deliveries, the body its deliveries carried and each delivery's latest
 * request headers, built by the functions the attempts use (webhookBody, attemptHeaders,
 * requestHeaders): the event page shows what the receiver got, not a re-rendering. The
 * endpoint's signing secret is never read here.
 */
export async function getEventAsDelivered({ ctx, input }: Verb<{ id: string }>): Promise<EventAsDelivered> {
  const { event, deliveries } = await getEventWithDeliveries({ ctx, input });
  const body = webhookBody(event, ctx.livemode);
  const attempted = deliveries.filter((delivery) => delivery.attemptCount > 0 && delivery.lastAttemptAt !== null);
  const rotations = new Map<string, { previous: string | null; previousExpiresAt: Date | null }>();
  if (attempted.length > 0) {
    const db = await getDb();
    const rows = await db
      .select({
        id: webhookEndpoints.id,
        previous: webhookEndpoints.previousSecretCiphertext,
        previousExpiresAt: webhookEndpoints.previousSecretExpiresAt,
      })
      .from(webhookEndpoints)
      .where(
        and(
          eq(webhookEndpoints.accountId, ctx.accountId),
          inArray(webhookEndpoints.id, [...new Set(attempted.map((delivery) => delivery.webhookEndpointId))]),
        ),
      );
    for (const row of rows) rotations.set(row.id, row);
  }
  const requests = attempted.map((delivery) => {
    const sentAt = delivery.lastAttemptAt!;
    const rotation = rotations.get(delivery.webhookEndpointId);
    const overlap = rotation !== undefined && previousSecretValid(rotation, sentAt);
    const secrets = { current: PLACEHOLDER_KEY, previous: overlap ? PLACEHOLDER_KEY : null };
    const claimed = { attempt: delivery.attemptCount, claimedAt: sentAt };
    const headers = requestHeaders(attemptHeaders(secrets, delivery.id, claimed, event, body), body);
    return { deliveryId: delivery.id, attempt: delivery.attemptCount, headers: maskSignatures(headers) };
  });
  return { event, deliveries, body: body.toString("utf8"), requests };
}
