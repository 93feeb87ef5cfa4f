import { and, eq, isNull } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { meters, prices } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { Verb } from "@/lib/context";
import { notFound, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { lockProductForPrice } from "@/lib/products/service";
import { one } from "@/lib/rows";
import { patchRecord } from "@/lib/schemas";
import { currencyOptionProblems, type PRICE_TYPES, type PriceCreateInput, type PriceCurrencyOptionsInput, type PriceUpdateInput } from "./schema";
import { serializePrice, type PriceRow } from "./serialize";
import { tiersProblem } from "./tiers";

/** A metered price counts an active meter of the account (422 otherwise, naming `recurring.meter`). */
async function requireActiveMeter(tx: ChangeTransaction, accountId: string, meterId: string): Promise<void> {
  const [meter] = await tx
    .select({ active: meters.active })
    .from(meters)
    .where(and(eq(meters.accountId, accountId), eq(meters.id, meterId)));
  if (!meter?.active) {
    const message = meter ? `Meter '${meterId}' is inactive.` : `No such meter: '${meterId}'.`;
    throw validationFailed([{ field: "recurring.meter", message }], message);
  }
}

/** Currency options as stored: the amounts given, `tax_behavior` defaulted. */
function storedOptions(options: z.output<typeof PriceCurrencyOptionsInput>): PriceRow["currencyOptions"] {
  return Object.fromEntries(
    Object.entries(options).map(([code, option]) => [
      code,
      {
        ...(option.unit_amount_atom === undefined ? {} : { unit_amount_atom: option.unit_amount_atom }),
        ...(option.tiers === undefined ? {} : { tiers: option.tiers }),
        tax_behavior: option.tax_behavior ?? ("unspecified" as const),
      },
    ]),
  );
}

/**
 * Currencies added to a price (docs/billing.md, "Currency options"): checked by the rule options
 * given at creation follow, against the price's own terms and the currencies it already bills in.
 * Only additions: an amount a customer may already have been billed never changes.
 */
function addedOptions(price: PriceRow, added: z.output<typeof PriceCurrencyOptionsInput> | undefined): PriceRow["currencyOptions"] {
  if (added === undefined || Object.keys(added).length === 0) return price.currencyOptions;
  const terms = { currency: price.currency, tiered: price.billingScheme === "tiered", tiers: price.tiers };
  const problems = currencyOptionProblems(terms, added, Object.keys(price.currencyOptions));
  if (problems.length > 0) {
    throw validationFailed(
      problems.map((problem) => ({ field: ["currency_options", ...problem.path].join("."), message: problem.message })),
      problems[0]!.message,
    );
  }
  return { ...price.currencyOptions, ...storedOptions(added) };
}

const live = (accountId: string) => and(eq(prices.accountId, accountId), isNull(prices.deletedAt));

/** The price, locked for the rest of the transaction (changes to one price serialize). */
async function lockPrice(tx: ChangeTransaction, accountId: string, id: string): Promise<PriceRow> {
  const [row] = await tx.select().from(prices).where(and(live(accountId), eq(prices.id, id))).for("update");
  if (!row) throw notFound("price", id);
  return row;
}

export async function createPrice({ ctx, input }: Verb<z.output<typeof PriceCreateInput>>): Promise<PriceRow> {
  return withChangeTransaction(async (tx) => {
    const product = await lockProductForPrice(tx, ctx.accountId, input.product);
    // The tiers' order is the domain's rule (lib/prices/tiers.ts), checked before anything is written.
    const problem = input.tiers ? tiersProblem(input.tiers) : null;
    if (problem) throw validationFailed([{ field: "tiers", message: problem }], problem);
    const currencyOptions = storedOptions(input.currency_options ?? {});
    const meterId = input.recurring?.meter ?? null;
    if (meterId !== null) await requireActiveMeter(tx, ctx.accountId, meterId);
    const now = ctx.now();
    const row = one(await tx
      .insert(prices)
      .values({
        id: newId("price"),
        accountId: ctx.accountId,
        productId: product.id,
        currency: input.currency,
        unitAmountAtom: input.unit_amount_atom ?? 0,
        type: input.type,
        recurringInterval: input.recurring?.interval ?? null,
        recurringIntervalCount: input.recurring ? (input.recurring.interval_count ?? 1) : null,
        usageType: input.recurring?.usage_type ?? "licensed",
        meterId,
        billingScheme: input.billing_scheme ?? "per_unit",
        tiersMode: input.tiers_mode ?? null,
        tiers: input.tiers ?? null,
        currencyOptions,
        nickname: input.nickname ?? null,
        active: input.active ?? true,
        metadata: input.metadata ?? {},
        created: now,
        updated: now,
      })
      .returning());
    await emitEvent(tx, ctx, {
      type: "price.created",
      aggregateId: row.id,
      data: serializePrice(row, ctx.livemode),
      previousData: null,
    });
    return row;
  });
}

export async function getPrice({ ctx, input }: Verb<{ id: string }>): Promise<PriceRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(prices)
    .where(and(live(ctx.accountId), eq(prices.id, input.id)));
  if (!row) throw notFound("price", input.id);
  return row;
}

export type PriceFilters = { product?: string; active?: boolean; type?: (typeof PRICE_TYPES)[number] };

export async function listPrices({ ctx, input }: Verb<Page & PriceFilters>): Promise<{ rows: PriceRow[] } & PageInfo> {
  const list = listQuery("prices", ctx.accountId, { active: input.active, type: input.type, product: input.product });
  return pageOf(list.table, list.where, input, list.options);
}

export async function updatePrice({
  ctx,
  input,
}: Verb<{ id: string; changes: z.output<typeof PriceUpdateInput> }>): Promise<PriceRow> {
  return withChangeTransaction(async (tx) => {
    const before = await lockPrice(tx, ctx.accountId, input.id);
    const { changes } = input;
    const next = {
      nickname: changes.nickname === undefined ? before.nickname : changes.nickname,
      active: changes.active ?? before.active,
      metadata: patchRecord(before.metadata, changes.metadata),
      currencyOptions: addedOptions(before, changes.currency_options),
    };
    const unchanged =
      next.nickname === before.nickname &&
      next.active === before.active &&
      JSON.stringify(next.metadata) === JSON.stringify(before.metadata) &&
      next.currencyOptions === before.currencyOptions;
    // No state change, no event.
    if (unchanged) return before;

    const after = one(await tx
      .update(prices)
      .set({ ...next, updated: ctx.now() })
      .where(eq(prices.id, before.id))
      .returning());
    await emitEvent(tx, ctx, {
      type: "price.updated",
      aggregateId: before.id,
      data: serializePrice(after, ctx.livemode),
      previousData: serializePrice(before, ctx.livemode),
    });
    return after;
  });
}

export async function deletePrice({ ctx, input }: Verb<{ id: string }>): Promise<{ id: string }> {
  return withChangeTransaction(async (tx) => {
    const before = await lockPrice(tx, ctx.accountId, input.id);
    const now = ctx.now();
    const after = one(await tx
      .update(prices)
      .set({ deletedAt: now, updated: now })
      .where(eq(prices.id, before.id))
      .returning());
    await emitEvent(tx, ctx, {
      type: "price.deleted",
      aggregateId: before.id,
      data: { ...serializePrice(after, ctx.livemode), deleted: true },
      previousData: serializePrice(before, ctx.livemode),
    });
    return { id: before.id };
  });
}
