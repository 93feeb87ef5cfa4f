import { sql } from "drizzle-orm";
import { boolean, index, integer, pgEnum, pgTable, text } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, id, time, updatedAt } from "./columns";
import { events } from "./events";

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
    /** The signing secret, encrypted at rest (lib/webhooks/secrets.ts). */
    secretCiphertext: text("secret_ciphertext").notNull(),
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
    created: createdAt(),
    updated: updatedAt(),
  },
  (t) => [
    index("event_deliveries_event_idx").on(t.eventId, t.created),
    index("event_deliveries_endpoint_idx").on(t.webhookEndpointId, t.created),
    // The embedded driver's queue: only unfinished deliveries, by when they are due.
    index("event_deliveries_due_idx")
      .on(t.nextRetryAt)
      .where(sql`${t.status} in ('pending', 'delivering') or (${t.status} = 'failed' and ${t.nextRetryAt} is not null)`),
  ],
);
