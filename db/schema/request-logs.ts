import { sql } from "drizzle-orm";
import { boolean, customType, index, integer, jsonb, pgTable, smallint, text } from "drizzle-orm/pg-core";
import { time } from "./columns";

/**
 * The API request log (lib/request-logs): one row per /api request, written in batches off the
 * request's path. The table is partitioned by day on `created` (declarative range partitioning,
 * migration 0026 says `PARTITION BY RANGE`; drizzle cannot): the app creates each day's partition
 * ahead and drops whole partitions past REQUEST_LOG_RETENTION_DAYS. No primary key (it would have
 * to include `created`); `id` is the request's `req_…` id, time-ordered, compared in the "C"
 * collation so that `id` order is creation order. Every index starts with the account and ends
 * with `id`, so each filter is one backward index range per partition, merged in `id desc` order.
 */
/** Text compared byte by byte: ids sort in creation order whatever the database's collation. */
const byteText = customType<{ data: string }>({ dataType: () => 'text collate "C"' });

export const requestLogs = pgTable(
  "request_logs",
  {
    id: byteText("id").notNull(),
    created: time("created").notNull(),
    /** Null when no account could be named: an unauthenticated request, an unknown path. */
    accountId: text("account_id"),
    livemode: boolean("livemode"),
    /** The API token's id (`key_…`); null for a dashboard session (then `userId`). */
    tokenId: text("token_id"),
    userId: text("user_id"),
    method: text("method").notNull(),
    operationId: text("operation_id"),
    path: byteText("path").notNull(),
    /** The query string, redacted, without its `?`; null when there is none. */
    query: text("query"),
    status: smallint("status").notNull(),
    /** `status / 100`: the 4xx and 5xx filters are one index range each. */
    statusClass: smallint("status_class").notNull(),
    errorCode: text("error_code"),
    durationMs: integer("duration_ms").notNull(),
    clientAddress: text("client_address"),
    userAgent: text("user_agent"),
    idempotencyKey: text("idempotency_key"),
    idempotentReplayed: boolean("idempotent_replayed").notNull().default(false),
    /** The headers that matter to a reader (never Authorization or Cookie), redacted. */
    requestHeaders: jsonb("request_headers").$type<Record<string, string>>().notNull().default({}),
    /** 4xx and 5xx only: the bodies, redacted, at most 16 KB each (lib/request-recorder/redact.ts). */
    requestBody: text("request_body"),
    responseBody: text("response_body"),
  },
  (t) => [
    index("request_logs_account_idx").on(t.accountId, t.id),
    index("request_logs_account_status_idx").on(t.accountId, t.status, t.id),
    index("request_logs_account_status_class_idx").on(t.accountId, t.statusClass, t.id),
    index("request_logs_account_method_idx").on(t.accountId, t.method, t.id),
    index("request_logs_account_operation_idx").on(t.accountId, t.operationId, t.id),
    index("request_logs_account_token_idx").on(t.accountId, t.tokenId, t.id),
    index("request_logs_account_path_idx").on(t.accountId, t.path, t.id),
    index("request_logs_account_idempotency_idx")
      .on(t.accountId, t.idempotencyKey, t.id)
      .where(sql`${t.idempotencyKey} is not null`),
  ],
);
