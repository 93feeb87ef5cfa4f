import { and, eq, inArray } from "drizzle-orm";
import type { z } from "zod";
import { getDb, type Executor } from "@/db/client";
import { pageOf } from "@/db/page";
import { taxRates } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { notFound, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import { patchRecord } from "@/lib/schemas";
import { percentToE4, type TaxRateCreateInput, type TaxRateUpdateInput } from "./schema";
import { serializeTaxRate, type TaxRateRow } from "./serialize";

const ofAccount = (accountId: string, id: string) => and(eq(taxRates.accountId, accountId), eq(taxRates.id, id));

export async function createTaxRate({ ctx, input }: Verb<z.output<typeof TaxRateCreateInput>>): Promise<TaxRateRow> {
  return withChangeTransaction(async (tx) => {
    const now = ctx.now();
    const row = one(
      await tx
        .insert(taxRates)
        .values({
          id: newId("taxRate"),
          accountId: ctx.accountId,
          displayName: input.display_name,
          description: input.description ?? null,
          percentageE4: percentToE4(input.percentage),
          inclusive: input.inclusive,
          country: input.country ?? null,
          jurisdiction: input.jurisdiction ?? null,
          metadata: input.metadata ?? {},
          created: now,
          updated: now,
        })
        .returning(),
    );
    await emitEvent(tx, ctx, { type: "tax_rate.created", aggregateId: row.id, data: serializeTaxRate(row, ctx.livemode), previousData: null });
    return row;
  });
}

export async function getTaxRate({ ctx, input }: Verb<{ id: string }>): Promise<TaxRateRow> {
  const db = await getDb();
  const [row] = await db.select().from(taxRates).where(ofAccount(ctx.accountId, input.id));
  if (!row) throw notFound("tax rate", input.id);
  return row;
}

/** Few per account: the list counts its rows exactly (no list-count triggers). */
export async function listTaxRates({ ctx, input }: Verb<Page & { active?: boolean }>): Promise<{ rows: TaxRateRow[] } & PageInfo> {
  const where = input.active === undefined ? eq(taxRates.accountId, ctx.accountId) : and(eq(taxRates.accountId, ctx.accountId), eq(taxRates.active, input.active));
  return pageOf(taxRates, where!, input, {});
}

export async function updateTaxRate({ ctx, input }: Verb<{ id: string; changes: z.output<typeof TaxRateUpdateInput> }>): Promise<TaxRateRow> {
  return withChangeTransaction(async (tx) => {
    const [before] = await tx.select().from(taxRates).where(ofAccount(ctx.accountId, input.id)).for("update");
    if (!before) throw notFound("tax rate", input.id);
    const { changes } = input;
    const next = {
      displayName: changes.display_name ?? before.displayName,
      description: changes.description === undefined ? before.description : changes.description,
      active: changes.active ?? before.active,
      country: changes.country === undefined ? before.country : changes.country,
      jurisdiction: changes.jurisdiction === undefined ? before.jurisdiction : changes.jurisdiction,
      metadata: patchRecord(before.metadata, changes.metadata),
    };
    const previous = serializeTaxRate(before, ctx.livemode);
    if (JSON.stringify(serializeTaxRate({ ...before, ...next }, ctx.livemode)) === JSON.stringify(previous)) return before;
    const after = one(await tx.update(taxRates).set({ ...next, updated: ctx.now() }).where(eq(taxRates.id, before.id)).returning());
    await emitEvent(tx, ctx, { type: "tax_rate.updated", aggregateId: after.id, data: serializeTaxRate(after, ctx.livemode), previousData: previous });
    return after;
  });
}

/**
 * The account's rates of `ids`, in that order; a missing one (or, unless `archivedToo`, an
 * archived one) is a 422 naming `field`. Existing uses of archived rates go on (renewals).
 */
export async function taxRatesOf(executor: Executor, accountId: string, ids: readonly string[], field: string, archivedToo = false): Promise<TaxRateRow[]> {
  if (ids.length === 0) return [];
  const rows = await executor.select().from(taxRates).where(and(eq(taxRates.accountId, accountId), inArray(taxRates.id, [...ids])));
  return ids.map((id) => {
    const row = rows.find((candidate) => candidate.id === id);
    if (!row) throw validationFailed([{ field, message: `No such tax rate: '${id}'.` }]);
    if (!row.active && !archivedToo) throw validationFailed([{ field, message: `Tax rate '${id}' is archived.` }]);
    return row;
  });
}
