import { eq, sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { accounts, events } from "@/db/schema";
import type { EventRow } from "@/lib/events-api/serialize";
import { rowsOf } from "@/lib/rows";
import type { StoredSecrets } from "./rotation";


export type ClaimedDelivery = {
  deliveryId: string;
  endpointId: string;
  accountId: string;
  eventId: string;
  attempt: number;
  /** The claim's instant, which is the row's `last_attempt_at` and the attempt's `webhook-timestamp`. */
  claimedAt: Date;
  url: string;
  secrets: StoredSecrets;
  event: EventRow;
  livemode: boolean;
};

type ClaimedRow = {
  id: string;
  webhook_endpoint_id: string;
  event_id: string;
  account_id: string;
  attempt_count: number;
  url: string;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: string | Date | null;
};

export type ClaimResult = {
  claimed: ClaimedDelivery[];
  /** When the earliest endpoint held back only by its rate gets its next slot. */
  wakeAt: Date | null;
  /** Endpoints with due work that another instance's claim held locked. */
  skipped: number;
  /** Endpoints whose slots were all taken (perhaps by another instance, whose completions do not wake this one). */
  full: number;
  /** Endpoints another instance claimed for after this statement's snapshot: counted afresh next time. */
  raced: number;
};

/**
 * Claims up to `room` due deliveries in one statement, fairly:
 * - endpoints with due work are found by a skip scan of (endpoint, due_at), so a backlog of one
 *   endpoint costs one index probe, not a scan of its rows;
 * - each endpoint's row is locked (SKIP LOCKED: another instance claiming for it is skipped this
 *   round), so its cap and rate hold across instances. The lock alone is not enough for the cap:
 *   a claim that committed after this statement's snapshot but before the lock is invisible to
 *   the count of attempts in flight. Every claim stamps the endpoint row with its transaction
 *   (`last_claim_xact`); the lock returns the row's newest version, so a stamp this snapshot does
 *   not see means "raced": the endpoint is left for the next claim, which counts afresh;
 * - an endpoint gets at most `perEndpoint` minus its attempts in flight (live leases, counted in
 *   the database: every instance's), and with `max_deliveries_per_second` only the slots its rate
 *   allows since `rate_next_at` (a burst of a tenth of a second's worth, at least one);
 * - endpoints are taken in turns: each account's first endpoint before any account's second, then
 *   by their oldest due row; the claimed rows interleave endpoints (round robin) under `room`.
 * Claimed rows become `delivering` with `attempt_count + 1` and a lease until `leaseUntil`: a
 * process that dies mid-attempt leaves them due again when the lease expires.
 */
export async function claimDue(
  db: Executor,
  options: { now: Date; leaseUntil: Date; room: number; perEndpoint: number },
): Promise<ClaimResult> {
  const now = sql`${options.now.toISOString()}::timestamptz`;
  const lease = sql`${options.leaseUntil.toISOString()}::timestamptz`;
  const room = sql`${options.room}::int`;
  const cap = sql`${options.perEndpoint}::int`;
  // Seconds one burst lasts at `rate`: a tenth of a second's worth of attempts, at least one.
  const burstSeconds = (rate: ReturnType<typeof sql>) => sql`(greatest(1, ceil(${rate} / 10.0)) / ${rate}::float8)`;
  const paceStart = (rate: ReturnType<typeof sql>, nextAt: ReturnType<typeof sql>) =>
    sql`greatest(coalesce(${nextAt}, '-infinity'::timestamptz), ${now} - ${burstSeconds(rate)} * interval '1 second')`;
  const epRate = sql`ep.max_deliveries_per_second`;
  const eRate = sql`e.max_deliveries_per_second`;

  const result = await db.execute(sql`
    -- Ordered by (endpoint, due_at) so that only event_deliveries_endpoint_due_idx serves the skip
    -- scan: an index on the endpoint alone would walk past every delivered row to find a due one.
    with recursive eps(id) as (
      (select d.webhook_endpoint_id from event_deliveries d
        where d.due_at <= ${now} order by d.webhook_endpoint_id, d.due_at limit 1)
      union all
      select (select d.webhook_endpoint_id from event_deliveries d
        where d.due_at <= ${now} and d.webhook_endpoint_id > eps.id order by d.webhook_endpoint_id, d.due_at limit 1)
      from eps where eps.id is not null
    ),
    ep as (
      select e.id, e.account_id, e.max_deliveries_per_second, e.rate_next_at,
        e.last_claim_xact is null or pg_visible_in_snapshot(e.last_claim_xact, pg_current_snapshot()) as settled
      from webhook_endpoints e
      where e.id in (select id from eps where id is not null) and e.enabled and e.deleted_at is null
      for no key update of e skip locked
    ),
    counted as (
      select ep.id, ep.account_id, ep.settled,
        (select min(d.due_at) from event_deliveries d where d.webhook_endpoint_id = ep.id and d.due_at <= ${now}) as oldest,
        ${cap} - (select count(*)::int from event_deliveries d
            -- "is true" keeps the lease test out of the index condition: the endpoint's leased rows
            -- (event_deliveries_delivering_idx, at most its cap) are counted, not every lease due later.
            where d.webhook_endpoint_id = ep.id and d.status = 'delivering' and (d.due_at > ${now}) is true) as free,
        case when ${epRate} is null then ${cap}
          else floor(extract(epoch from (${now} - ${paceStart(epRate, sql`ep.rate_next_at`)})) * ${epRate} + 0.000001)::int end as allowed,
        ep.rate_next_at + (1 / ${epRate}::float8) * interval '1 second' as next_slot
      from ep
    ),
    budget as (
      select counted.*, case when counted.settled then least(counted.free, counted.allowed) else 0 end as k from counted
    ),
    chosen as (
      select b.id, b.k, b.oldest, row_number() over (partition by b.account_id order by b.oldest, b.id) as account_turn
      from budget b where b.k > 0
      order by account_turn, b.oldest limit ${room}
    ),
    picked as (
      select l.id, c.account_turn, c.oldest,
        row_number() over (partition by c.id order by l.due_at, l.id) as turn
      from chosen c cross join lateral (
        select d.id, d.due_at from event_deliveries d
        where d.webhook_endpoint_id = c.id and d.due_at <= ${now}
        order by d.due_at limit c.k
        for update of d skip locked
      ) l
    ),
    take as (select id from picked order by turn, account_turn, oldest limit ${room}),
    claimed as (
      update event_deliveries d
      set status = 'delivering', attempt_count = d.attempt_count + 1, last_attempt_at = ${now},
        next_retry_at = null, due_at = ${lease}, updated = ${now}
      -- An array of ids, not a join: the planner cannot mistake a small batch for a table scan.
      where d.id = any (array(select id from take))
      returning d.id, d.webhook_endpoint_id, d.event_id, d.account_id, d.attempt_count
    ),
    paced as (
      update webhook_endpoints e
      set last_claim_xact = pg_current_xact_id(),
        rate_next_at = case when ${eRate} is null then e.rate_next_at
          else ${paceStart(eRate, sql`e.rate_next_at`)} + (n.claimed / ${eRate}::float8) * interval '1 second' end
      from (select webhook_endpoint_id, count(*) as claimed from claimed group by 1) n
      where e.id = n.webhook_endpoint_id
    )
    select c.id, c.webhook_endpoint_id, c.event_id, c.account_id, c.attempt_count, e.url, e.secret_ciphertext,
      e.previous_secret_ciphertext, e.previous_secret_expires_at,
      null::timestamptz as wake_at, null::int as skipped, null::int as full_endpoints, null::int as raced
    from claimed c join webhook_endpoints e on e.id = c.webhook_endpoint_id
    union all
    -- One more row (id null) about what was left: when the earliest endpoint held back only by
    -- its rate gets its next slot, how many endpoints another instance's claim held locked, and
    -- how many had all their slots taken.
    select null, null, null, null, null, null, null, null, null, min(b.next_slot),
      (select count(*)::int from webhook_endpoints e
        where e.id in (select id from eps where id is not null) and e.enabled and e.deleted_at is null)
        - (select count(*)::int from ep),
      (select count(*)::int from budget b where b.settled and b.free <= 0),
      (select count(*)::int from budget b where not b.settled)
    from budget b where b.settled and b.free > 0 and b.allowed <= 0
  `);
  const all = rowsOf<
    ClaimedRow & { wake_at: string | Date | null; skipped: number | null; full_endpoints: number | null; raced: number | null }
  >(result);
  const wake = all.find((row) => row.id === null);
  const wakeAt = wake?.wake_at ? new Date(wake.wake_at) : null;
  const skipped = Number(wake?.skipped ?? 0);
  const full = Number(wake?.full_endpoints ?? 0);
  const raced = Number(wake?.raced ?? 0);
  const rows = all.filter((row) => row.id !== null);
  if (rows.length === 0) return { claimed: [], wakeAt, skipped, full, raced };

  // One query for the batch's events (several deliveries often share one: fan-out).
  const eventIds = [...new Set(rows.map((row) => row.event_id))];
  const found = await db
    .select({ event: events, livemode: accounts.livemode })
    .from(events)
    .innerJoin(accounts, eq(accounts.id, events.accountId))
    // One statement text whatever the count (prepared once), unlike an IN list of n parameters.
    .where(sql`${events.id} = any (array(select jsonb_array_elements_text(${JSON.stringify(eventIds)}::jsonb)))`);
  const byId = new Map(found.map((row) => [row.event.id, row]));
  const claimed = rows.map((row) => {
    const event = byId.get(row.event_id)!;
    return {
      deliveryId: row.id,
      endpointId: row.webhook_endpoint_id,
      accountId: row.account_id,
      eventId: row.event_id,
      attempt: Number(row.attempt_count),
      claimedAt: options.now,
      url: row.url,
      secrets: {
        current: row.secret_ciphertext,
        previous: row.previous_secret_ciphertext,
        previousExpiresAt: row.previous_secret_expires_at ? new Date(row.previous_secret_expires_at) : null,
      },
      event: event.event,
      livemode: event.livemode,
    };
  });
  return { claimed, wakeAt, skipped, full, raced };
}

/**
 * Due deliveries of disabled or deleted endpoints fail without an attempt (as the single-delivery
 * claim does), a bounded batch per call.
 */
export async function failUndeliverable(db: Executor, now: Date): Promise<number> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const result = await db.execute(sql`
    with gone as (
      select d.id, e.deleted_at is not null as deleted
      from webhook_endpoints e
      join event_deliveries d on d.webhook_endpoint_id = e.id and d.due_at <= ${at}
      where (not e.enabled or e.deleted_at is not null)
      limit 500
      for update of d skip locked
    )
    update event_deliveries d
    set status = 'failed', due_at = null, next_retry_at = null, updated = ${at},
      error = case when gone.deleted then 'The webhook endpoint is deleted.' else 'The webhook endpoint is disabled.' end
    from gone where d.id = gone.id
    returning d.id
  `);
  return rowsOf(result).length;
}
