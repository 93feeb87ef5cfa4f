import { sql } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@/db/client";
import { DateTime } from "@/lib/schemas";
import { rowsOf } from "@/lib/rows";
import { realNow } from "@/lib/time";

/** Minutes of recent throughput shown. */
export const THROUGHPUT_MINUTES = 5;

export const DeliveryLag = z
  .object({
    oldest_due_seconds: z.number().nullable().meta({
      description:
        "How long the oldest delivery that is due now has been waiting for its attempt (seconds; null: none is waiting). " +
        "Growing while `in_flight` is at the endpoint's concurrency limit and attempts are slow: the receiver is slow. " +
        "Growing while attempts are fast: the platform is behind.",
    }),
    due: z.number().int().meta({ description: "Deliveries due now and waiting for an attempt." }),
    in_flight: z.number().int().meta({ description: "Attempts under way right now." }),
    per_minute: z
      .array(
        z.object({
          minute: DateTime.meta({ description: "Start of the minute." }),
          delivered: z.number().int(),
          failed: z.number().int().meta({ description: "Of those, attempts that did not deliver (retried later or not)." }),
          average_duration_ms: z.number().int().nullable().meta({ description: "Mean duration of those attempts (null: none finished)." }),
        }),
      )
      .meta({
        description:
          `Throughput of the last ${THROUGHPUT_MINUTES} minutes, oldest first (the current minute last): deliveries whose ` +
          "latest attempt finished in that minute, delivered or not.",
      }),
  })
  .meta({ id: "DeliveryLag" });
export type DeliveryLagObject = z.infer<typeof DeliveryLag>;

type LagRow = { oldest: string | Date | null; due: number | string; in_flight: number | string };
type MinuteRow = { minute: string | Date; delivered: number | string; failed: number | string; average_ms: number | string | null };

/** How far behind an endpoint's deliveries are, and how fast they go (the endpoint's health). */
export async function endpointLag(endpointId: string, now = realNow()): Promise<DeliveryLagObject> {
  const db = await getDb();
  const at = sql`${now.toISOString()}::timestamptz`;
  const from = new Date(Math.floor(now.getTime() / 60_000) * 60_000 - (THROUGHPUT_MINUTES - 1) * 60_000);
  const [lagResult, minutesResult] = await Promise.all([
    db.execute(sql`
      select
        (select min(due_at) from event_deliveries where webhook_endpoint_id = ${endpointId} and due_at <= ${at}) as oldest,
        (select count(*) from event_deliveries where webhook_endpoint_id = ${endpointId} and due_at <= ${at}) as due,
        (select count(*) from event_deliveries
          where webhook_endpoint_id = ${endpointId} and status = 'delivering' and due_at > ${at}) as in_flight
    `),
    // An attempt's delivery row holds its last attempt: recent rows by last_attempt_at (indexed).
    db.execute(sql`
      select date_trunc('minute', d.last_attempt_at) as minute,
        count(*) filter (where d.status = 'delivered') as delivered,
        count(*) filter (where d.status = 'failed') as failed,
        avg(a.duration_ms) as average_ms
      from event_deliveries d
      left join delivery_attempts a on a.delivery_id = d.id and a.attempt_number = d.attempt_count
      where d.webhook_endpoint_id = ${endpointId} and d.last_attempt_at >= ${from.toISOString()}::timestamptz
      group by 1
    `),
  ]);
  const lag = rowsOf<LagRow>(lagResult)[0]!;
  const byMinute = new Map(rowsOf<MinuteRow>(minutesResult).map((row) => [new Date(row.minute).getTime(), row]));
  return {
    oldest_due_seconds: lag.oldest === null ? null : Math.max(0, (now.getTime() - new Date(lag.oldest).getTime()) / 1000),
    due: Number(lag.due),
    in_flight: Number(lag.in_flight),
    per_minute: Array.from({ length: THROUGHPUT_MINUTES }, (_, i) => {
      const minute = from.getTime() + i * 60_000;
      const row = byMinute.get(minute);
      return {
        minute: new Date(minute).toISOString(),
        delivered: Number(row?.delivered ?? 0),
        failed: Number(row?.failed ?? 0),
        average_duration_ms: row?.average_ms == null ? null : Math.round(Number(row.average_ms)),
      };
    }),
  };
}
