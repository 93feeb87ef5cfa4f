import { eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts, eventDeliveries, events, webhookEndpoints } from "@/db/schema";
import type { EventRow } from "@/lib/events-api/serialize";
import { config } from "@/lib/config";
import { webhookBody } from "./payload";
import { attemptTimeoutMs, retryDelays, type Delay } from "./schedule";
import { recordAttempts } from "./record";
import { sendWebhook, type SendResult } from "./send";
import { deliveryHeaders, type SigningSecrets } from "./signing";
import { signingSecrets, type StoredSecrets } from "./rotation";
import { realNow } from "@/lib/time";

/**
 * Which attempt is wanted:
 * - `due`: whatever is due now (the embedded driver's poll);
 * - `scheduled`: the n-th attempt of a delivery's schedule (the Inngest function; idempotent, so a
 *   replayed or duplicated run cannot attempt twice);
 * - `manual`: one new attempt of a permanently failed delivery (API and dashboard).
 */
export type AttemptRequest = { mode: "due" } | { mode: "scheduled"; attempt: number } | { mode: "manual" };

export type AttemptOutcome =
  | { result: "delivered"; attempt: number; status: number }
  | { result: "retry"; attempt: number; error: string; delay: Delay }
  | { result: "failed"; attempt: number; error: string }
  | { result: "skipped"; reason: "not_found" | "busy" | "not_due" | "finished" | "not_failed" | "endpoint_deleted" };

export type AttemptedOutcome = Exclude<AttemptOutcome, { result: "skipped" }>;

/** How long a claimed attempt may run before another driver may take the delivery over: twice the deadline. */
export const leaseMs = () => 2 * attemptTimeoutMs();

type Claim = {
  attempt: number;
  claimedAt: Date;
  url: string;
  secrets: StoredSecrets;
  eventId: string;
  accountId: string;
};

async function claim(deliveryId: string, request: AttemptRequest, now: Date): Promise<Claim | AttemptOutcome> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({
        delivery: eventDeliveries,
        url: webhookEndpoints.url,
        enabled: webhookEndpoints.enabled,
        endpointDeletedAt: webhookEndpoints.deletedAt,
        secrets: {
          current: webhookEndpoints.secretCiphertext,
          previous: webhookEndpoints.previousSecretCiphertext,
          previousExpiresAt: webhookEndpoints.previousSecretExpiresAt,
        },
      })
      .from(eventDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, eventDeliveries.webhookEndpointId))
      .where(eq(eventDeliveries.id, deliveryId))
      .for("update", { of: eventDeliveries, skipLocked: true });
    if (!row) {
      const [exists] = await tx.select({ id: eventDeliveries.id }).from(eventDeliveries).where(eq(eventDeliveries.id, deliveryId));
      return { result: "skipped", reason: exists ? "busy" : "not_found" };
    }
    const { delivery } = row;
    const scheduled = delivery.dueAt !== null;
    const leased = delivery.status === "delivering" && delivery.dueAt !== null && delivery.dueAt > now;

    if (request.mode === "manual") {
      if (delivery.status !== "failed" || scheduled) return { result: "skipped", reason: "not_failed" };
      // A disabled endpoint may still be retried by hand; a deleted one is gone.
      if (row.endpointDeletedAt) return { result: "skipped", reason: "endpoint_deleted" };
    } else {
      if (!scheduled) return { result: "skipped", reason: "finished" };
      if (request.mode === "due" && delivery.dueAt! > now) return { result: "skipped", reason: "not_due" };
      if (request.mode === "scheduled" && (delivery.attemptCount !== request.attempt - 1 || leased)) {
        return { result: "skipped", reason: "not_due" };
      }
      if (!row.enabled || row.endpointDeletedAt) {
        const error = `The webhook endpoint is ${row.endpointDeletedAt ? "deleted" : "disabled"}.`;
        await tx
          .update(eventDeliveries)
          .set({ status: "failed", error, dueAt: null, nextRetryAt: null, updated: now })
          .where(eq(eventDeliveries.id, deliveryId));
        return { result: "failed", attempt: delivery.attemptCount, error };
      }
    }

    const attempt = delivery.attemptCount + 1;
    await tx
      .update(eventDeliveries)
      .set({
        status: "delivering",
        attemptCount: attempt,
        lastAttemptAt: now,
        nextRetryAt: null,
        dueAt: new Date(now.getTime() + leaseMs()),
        updated: now,
      })
      .where(eq(eventDeliveries.id, deliveryId));
    return {
      attempt,
      claimedAt: now,
      url: row.url,
      secrets: row.secrets,
      eventId: delivery.eventId,
      accountId: delivery.accountId,
    };
  });
}

export function classify(sent: SendResult, attempt: number, request: AttemptRequest): AttemptedOutcome {
  const status = sent.status;
  if (status !== null && status >= 200 && status < 300) return { result: "delivered", attempt, status };
  if (status !== null && status >= 400 && status < 500) {
    return { result: "failed", attempt, error: `The endpoint answered HTTP ${status}; 4xx responses are not retried.` };
  }
  const error =
    status === null
      ? sent.error!
      : status >= 300 && status < 400
        ? `The endpoint answered HTTP ${status}; redirects are not followed.`
        : `The endpoint answered HTTP ${status}.`;
  if (sent.blocked) return { result: "failed", attempt, error };
  const delays = retryDelays();
  if (request.mode !== "manual" && attempt <= delays.length) {
    return { result: "retry", attempt, error, delay: delays[attempt - 1]! };
  }
  return { result: "failed", attempt, error };
}

/**
 * One delivery attempt: claim the row (locked, so never two at once), sign and POST the payload,
 * classify the answer, and record it on the delivery and in the attempt log. Used by the Inngest
 * function and manual retries; the embedded driver claims and records in batches (driver.ts) but
 * sends and classifies with the same functions.
 */
export async function attemptDelivery(deliveryId: string, request: AttemptRequest): Promise<AttemptOutcome> {
  const claimed = await claim(deliveryId, request, realNow());
  if ("result" in claimed) return claimed;

  const db = await getDb();
  const [event] = await db
    .select({ event: events, livemode: accounts.livemode })
    .from(events)
    .innerJoin(accounts, eq(accounts.id, events.accountId))
    .where(eq(events.id, claimed.eventId));
  const sent = await sendAttempt(deliveryId, claimed, event!.event, event!.livemode);
  const outcome = classify(sent, claimed.attempt, request);
  await recordAttempts(db, [
    {
      deliveryId,
      accountId: claimed.accountId,
      attempt: claimed.attempt,
      url: claimed.url,
      trigger: request.mode === "manual" ? "manual" : "scheduled",
      sent,
      outcome,
      at: realNow(),
    },
  ]);
  return outcome;
}

// A claimed batch shares one event object among the deliveries of one event (fan-out): its body
// is serialized once for all of them.
const bodies = new WeakMap<EventRow, Buffer>();
function payloadBody(event: EventRow, livemode: boolean): Buffer {
  let body = bodies.get(event);
  if (!body) {
    body = webhookBody(event, livemode);
    bodies.set(event, body);
  }
  return body;
}

/**
 * The headers of attempt `attempt` of a delivery, without Content-Length (sendWebhook adds it).
 * `webhook-timestamp` is the claim's instant, recorded as the row's `last_attempt_at`, so the
 * event page rebuilds exactly what the receiver got (lib/webhooks/delivered.ts).
 */
export function attemptHeaders(
  secrets: SigningSecrets,
  deliveryId: string,
  claimed: { attempt: number; claimedAt: Date },
  event: Pick<EventRow, "id" | "type">,
  body: Buffer,
): Record<string, string> {
  return deliveryHeaders(secrets, {
    body,
    eventId: event.id,
    eventType: event.type,
    deliveryId,
    attempt: claimed.attempt,
    sentAt: claimed.claimedAt,
  });
}

/** Signs and POSTs one attempt of a claimed delivery (signed once per event × endpoint × attempt). */
export async function sendAttempt(
  deliveryId: string,
  claimed: Pick<Claim, "attempt" | "claimedAt" | "url" | "secrets">,
  event: EventRow,
  livemode: boolean,
): Promise<SendResult> {
  const body = payloadBody(event, livemode);
  const { allowPrivateNetworks, allowLoopback } = config().webhooks;
  return sendWebhook({
    url: claimed.url,
    body,
    headers: attemptHeaders(signingSecrets(claimed.secrets, claimed.claimedAt), deliveryId, claimed, event, body),
    timeoutMs: attemptTimeoutMs(),
    allowPrivateNetworks,
    allowLoopback,
  });
}
