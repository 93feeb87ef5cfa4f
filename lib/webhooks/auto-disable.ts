import { sql, type SQL } from "drizzle-orm";
import { config } from "@/lib/config";
import { parseDelay } from "./schedule";

/** The threshold in force (WEBHOOK_AUTO_DISABLE_AFTER, default 5 days as Svix), or null when off. */
export function autoDisableAfter(): { text: string; ms: number } | null {
  const setting = config().webhooks.autoDisableAfter;
  return setting === "off" ? null : parseDelay(setting);
}

/**
 * The auto-disable bookkeeping of a batch of recorded attempts, as one UPDATE for the statement
 * that records them (lib/webhooks/record.ts). `outcomes` is a relation of (endpoint_id,
 * any_delivered, last_delivered): per endpoint, whether an attempt of the batch succeeded and
 * whether its last one did.
 * - last attempt succeeded: `failing_since` is cleared;
 * - last attempt failed: `failing_since` is set (to now if an earlier attempt of the batch
 *   succeeded, else only if unset);
 * - every attempt failed since `failing_since`, for the threshold: the endpoint is disabled with a
 *   reason and time.
 * Times are the account's clock, so a sandbox test clock can carry an endpoint through five failing
 * days. The update matches no row in the common case (healthy endpoint, or already failing), so it
 * takes no lock then.
 */
export function endpointHealthUpdate(outcomes: SQL, at: Date): SQL {
  const accountNow = sql`(select now() + a.clock_offset_ms * interval '1 millisecond' from accounts a where a.id = e.account_id)`;
  const threshold = autoDisableAfter();
  const disable = threshold
    ? sql`(not o.any_delivered and e.enabled and e.deleted_at is null
        and e.failing_since <= ${accountNow} - ${threshold.ms}::bigint * interval '1 millisecond')`
    : sql`false`;
  const reason = threshold
    ? sql`'Every delivery attempt failed for ${sql.raw(threshold.text)} (since ' || to_char(e.failing_since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || '), so the endpoint was disabled automatically.'`
    : sql`null`;
  return sql`
    update webhook_endpoints e set
      failing_since = case when o.last_delivered then null
        when o.any_delivered or e.failing_since is null then ${accountNow} else e.failing_since end,
      enabled = case when ${disable} then false else e.enabled end,
      disabled_at = case when ${disable} then ${accountNow} else e.disabled_at end,
      disabled_reason = case when ${disable} then ${reason} else e.disabled_reason end,
      updated = case when ${disable} then ${at.toISOString()}::timestamptz else e.updated end
    from ${outcomes} o
    where e.id = o.endpoint_id and (
      (o.last_delivered and e.failing_since is not null)
      or (not o.last_delivered and (o.any_delivered or e.failing_since is null))
      or ${disable})`;
}
