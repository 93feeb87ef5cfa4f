import { and, eq, sql } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { pageOf } from "@/db/page";
import { meters } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, ServiceError } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import type { MeterCreateInput, MeterUpdateInput } from "./schema";
import { serializeMeter, type MeterRow } from "./serialize";

async function lockMeter(tx: ChangeTransaction, accountId: string, id: string): Promise<MeterRow> {
  const [row] = await tx
    .select()
    .from(meters)
    .where(and(eq(meters.accountId, accountId), eq(meters.id, id)))
    .for("update");
  if (!row) throw notFound("meter", id);
  return row;
}

/**
 * Refuses a second active meter of `eventName`. The advisory lock serializes the check with a
 * concurrent create or reactivation of the same name, so the partial unique index is never the
 * one to answer (it would be a 500).
 */
async function claimEventName(tx: ChangeTransaction, accountId: string, eventName: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`meter:${accountId}:${eventName}`}, 0))`);
  const [taken] = await tx
    .select({ id: meters.id })
    .from(meters)
    .where(and(eq(meters.accountId, accountId), eq(meters.eventName, eventName), eq(meters.active, true)));
  if (taken) {
    throw new ServiceError("conflict", `The active meter '${taken.id}' already counts event_name '${eventName}'.`, {
      error_code: "meter_event_name_taken",
    });
  }
}

async function emitMeter(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  type: "meter.created" | "meter.updated" | "meter.deactivated" | "meter.reactivated",
  after: MeterRow,
  before: MeterRow | null,
): Promise<void> {
  await emitEvent(tx, ctx, {
    type,
    aggregateId: after.id,
    data: serializeMeter(after, ctx.livemode),
    previousData: before === null ? null : serializeMeter(before, ctx.livemode),
  });
}

export async function createMeter({ ctx, input }: Verb<z.output<typeof MeterCreateInput>>): Promise<MeterRow> {
  return withChangeTransaction(async (tx) => {
    await claimEventName(tx, ctx.accountId, input.event_name);
    const now = ctx.now();
    const row = one(await tx
      .insert(meters)
      .values({
        id: newId("meter"),
        accountId: ctx.accountId,
        eventName: input.event_name,
        displayName: input.display_name,
        aggregation: input.aggregation,
        valueKey: input.value_key ?? "value",
        created: now,
        updated: now,
      })
      .returning());
    await emitMeter(tx, ctx, "meter.created", row, null);
    return row;
  });
}

export async function getMeter({ ctx, input }: Verb<{ id: string }>): Promise<MeterRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(meters)
    .where(and(eq(meters.accountId, ctx.accountId), eq(meters.id, input.id)));
  if (!row) throw notFound("meter", input.id);
  return row;
}

/** Meters are few per account: the list counts its rows exactly (no kept totals). */
export async function listMeters({ ctx, input }: Verb<Page>): Promise<{ rows: MeterRow[] } & PageInfo> {
  return pageOf(meters, eq(meters.accountId, ctx.accountId), input);
}

/** Only `display_name` changes: what a meter counts is fixed once events were counted by it. */
export async function updateMeter({
  ctx,
  input,
}: Verb<{ id: string; changes: z.output<typeof MeterUpdateInput> }>): Promise<MeterRow> {
  return withChangeTransaction(async (tx) => {
    const before = await lockMeter(tx, ctx.accountId, input.id);
    const displayName = input.changes.display_name ?? before.displayName;
    if (displayName === before.displayName) return before;
    const after = one(await tx
      .update(meters)
      .set({ displayName, updated: ctx.now() })
      .where(eq(meters.id, before.id))
      .returning());
    await emitMeter(tx, ctx, "meter.updated", after, before);
    return after;
  });
}

/** Deactivating an inactive meter (or reactivating an active one) changes nothing and emits nothing. */
export async function setMeterActive({ ctx, input }: Verb<{ id: string; active: boolean }>): Promise<MeterRow> {
  return withChangeTransaction(async (tx) => {
    const before = await lockMeter(tx, ctx.accountId, input.id);
    if (before.active === input.active) return before;
    if (input.active) await claimEventName(tx, ctx.accountId, before.eventName);
    const after = one(await tx
      .update(meters)
      .set({ active: input.active, updated: ctx.now() })
      .where(eq(meters.id, before.id))
      .returning());
    await emitMeter(tx, ctx, input.active ? "meter.reactivated" : "meter.deactivated", after, before);
    return after;
  });
}
