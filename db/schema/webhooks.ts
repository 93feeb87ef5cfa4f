import { sql } from "drizzle-orm";
import { boolean, customType, index, integer, pgEnum, pgTable, text } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id, time, updatedAt } from "./columns";
import { events } from "./events";

/** A 64-bit transaction id (`xid8`), as `pg_current_xact_id()` returns it; read as text. */
const transactionId = customType<{ data: string; driverData: string }>({ dataType: () => "xid8" });

export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    url: text("url").notNull(),
    description: text("description"),
    /** Subscribed event types; `["*"]` subscribes to every type. */
    events: text("events").array().notNull(),
    enabled: boolean("enabled").notNull().default(true),
    /** The signing secret, encrypted at rest (lib/secrets.ts). */
    secretCiphertext: text("secret_ciphertext").notNull(),
    /** After a rotation with overlap: the replaced secret, encrypted, still signing until it expires. */
    previousSecretCiphertext: text("previous_secret_ciphertext"),
    previousSecretExpiresAt: time("previous_secret_expires_at"),
    /** Since when every attempt has failed (account clock); null after any success (lib/webhooks/auto-disable.ts). */
    failingSince: time("failing_since"),
    /** Set when the service disabled the endpoint itself; cleared when it is enabled again. */
    disabledAt: time("disabled_at"),
    disabledReason: text("disabled_reason"),
    /** At most this many attempts start per second, across all instances; null: no limit. */
    maxDeliveriesPerSecond: integer("max_deliveries_per_second"),
    /**
     * The rate limiter's state (lib/webhooks/claim.ts): the instant the next attempt's slot
     * starts. Advanced by the claim statement, under the endpoint row's lock, so it holds across
     * instances.
     */
    rateNextAt: time("rate_next_at"),
    /**
     * The transaction of the last claim that took deliveries of this endpoint. A claim whose
     * snapshot predates it skips the endpoint this round: its count of attempts in flight would
     * miss that claim's (lib/webhooks/claim.ts).
     */
    lastClaimXact: transactionId("last_claim_xact"),
    created: createdAt(),
    updated: updatedAt(),
    deletedAt: time("deleted_at"),
  },
  (t) => [index("webhook_endpoints_account_idx").on(t.accountId, t.created, t.id)],
);

export const deliveryStatusEnum = pgEnum("delivery_status", ["pending", "delivering", "delivered", "failed"]);

/** One row per (event, subscribed endpoint): the single source of truth of a delivery. */
export const eventDeliveries = pgTable(
  "event_deliveries",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id),
    webhookEndpointId: text("webhook_endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id),
    status: deliveryStatusEnum("status").notNull().default("pending"),
    attemptCount: integer("attempt_count").notNull().default(0),
    lastAttemptAt: time("last_attempt_at"),
    deliveredAt: time("delivered_at"),
    nextRetryAt: time("next_retry_at"),
    responseStatus: integer("response_status"),
    error: text("error"),
    /**
     * When a driver should next attempt it; null once nothing is scheduled (delivered, or failed
     * permanently). While `delivering` it is the lease expiry: a crashed attempt becomes due again.
     */
    dueAt: time("due_at"),
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [
    index("event_deliveries_event_idx").on(t.eventId, t.created),
    index("event_deliveries_endpoint_idx").on(t.webhookEndpointId, t.created, t.id),
    index("event_deliveries_endpoint_status_idx").on(t.webhookEndpointId, t.status, t.created, t.id),
    // The drivers' queue: only deliveries with something scheduled, by when it is due.
    index("event_deliveries_due_idx").on(t.dueAt).where(sql`${t.dueAt} is not null`),
    // The claim's per-endpoint view: which endpoints have due work, and each one's oldest rows.
    index("event_deliveries_endpoint_due_idx").on(t.webhookEndpointId, t.dueAt).where(sql`${t.dueAt} is not null`),
    // Attempts in flight per endpoint (the concurrency cap): a small index, only leased rows.
    // Recent throughput per endpoint (lib/webhooks/lag.ts).
    index("event_deliveries_endpoint_attempted_idx").on(t.webhookEndpointId, t.lastAttemptAt),
    index("event_deliveries_delivering_idx").on(t.webhookEndpointId, t.dueAt).where(sql`${t.status} = 'delivering'`),
  ],
);

export const attemptTriggerEnum = pgEnum("attempt_trigger", ["scheduled", "manual"]);
export const attemptOutcomeEnum = pgEnum("attempt_outcome", ["delivered", "retry", "failed"]);

/** The log of every attempt: what was sent when, and what came back (for the dashboard). */
export const deliveryAttempts = pgTable(
  "delivery_attempts",
  {
    id: id(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => eventDeliveries.id),
    attemptNumber: integer("attempt_number").notNull(),
    trigger: attemptTriggerEnum("trigger").notNull(),
    outcome: attemptOutcomeEnum("outcome").notNull(),
    url: text("url").notNull(),
    responseStatus: integer("response_status"),
    error: text("error"),
    /** The first 4 KB of the response body. */
    responseExcerpt: text("response_excerpt"),
    durationMs: integer("duration_ms").notNull(),
    created: createdAt(),
  },
  (t) => [index("delivery_attempts_delivery_idx").on(t.deliveryId, t.attemptNumber)],
);
