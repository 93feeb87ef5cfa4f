import { index, integer, pgEnum, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { accounts } from "./accounts";
import { createdAt, time } from "./columns";

export const idempotencyStateEnum = pgEnum("idempotency_state", ["in_progress", "completed"]);

/** One row per (account, Idempotency-Key): the first request's fingerprint and, once done, its answer. */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    key: text("key").notNull(),
    /** SHA-256 of method, path and body: the same key with another request is refused. */
    fingerprint: text("fingerprint").notNull(),
    state: idempotencyStateEnum("state").notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    created: createdAt(),
    expiresAt: time("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.key] }), index("idempotency_keys_expiry_idx").on(t.expiresAt)],
);
