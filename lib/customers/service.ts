import { and, eq, isNull, or, sql } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { customers, paymentMethods } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import type { ServiceContext, Verb } from "@/lib/context";
import { notFound, validationFailed } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { groupedChange } from "@/lib/events/group-commit";
import { postalAddress } from "@/lib/account-settings/address";
import { findDiscount } from "@/lib/discounts/service";
import type { DiscountWithCoupon } from "@/lib/discounts/serialize";
import { newId } from "@/lib/ids";
import { taxRatesOf } from "@/lib/tax-rates/service";
import { one } from "@/lib/rows";
import { patchRecord } from "@/lib/schemas";
import type { CustomerCreateInput, CustomerUpdateInput } from "./schema";
import { currencyHeld, currencyHolds } from "./currency";
import { customerState, type CustomerRow } from "./serialize";

const live = (accountId: string) => and(eq(customers.accountId, accountId), isNull(customers.deletedAt));

/** The customer, locked for the rest of the transaction (changes to one customer serialize). */
async function lockCustomer(tx: ChangeTransaction, accountId: string, id: string): Promise<CustomerRow> {
  const [row] = await tx.select().from(customers).where(and(live(accountId), eq(customers.id, id))).for("update");
  if (!row) throw notFound("customer", id);
  return row;
}

export async function createCustomer({ ctx, input }: Verb<z.output<typeof CustomerCreateInput>>): Promise<CustomerRow> {
  // Group-committed with the account's concurrent creations (docs/ARCHITECTURE.md, "Group commit
  // of changes"): each is a new row and a new aggregate, so no two touch one row.
  return groupedChange(`customer.create:${ctx.livemode ? "live" : "test"}:${ctx.accountId}`, async (tx) => {
    if (input.default_tax_rate) await taxRatesOf(tx, ctx.accountId, [input.default_tax_rate], "default_tax_rate");
    const now = ctx.now();
    const row = one(await tx
      .insert(customers)
      .values({
        id: newId("customer"),
        accountId: ctx.accountId,
        email: input.email,
        name: input.name ?? null,
        address: postalAddress(input.address),
        preferredLocale: input.preferred_locale ?? null,
        taxIds: input.tax_ids ?? [],
        invoiceEmails: input.invoice_emails ?? [],
        defaultTaxRate: input.default_tax_rate ?? null,
        currency: input.currency ?? null,
        customFields: input.custom_fields ?? {},
        metadata: input.metadata ?? {},
        created: now,
        updated: now,
      })
      .returning());
    await emitEvent(tx, ctx, {
      type: "customer.created",
      aggregateId: row.id,
      data: customerState(row, ctx.livemode),
      previousData: null,
    });
    return row;
  });
}

export async function getCustomer({ ctx, input }: Verb<{ id: string }>): Promise<CustomerRow> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(customers)
    .where(and(live(ctx.accountId), eq(customers.id, input.id)));
  if (!row) throw notFound("customer", input.id);
  return row;
}

/** A customer and, when `discount` is asked for, their discount (null when none; undefined when not asked). */
export async function getCustomerExpanded({
  ctx,
  input,
}: Verb<{ id: string; discount: boolean }>): Promise<{ row: CustomerRow; discount?: DiscountWithCoupon | null }> {
  const row = await getCustomer({ ctx, input });
  if (!input.discount) return { row };
  return { row, discount: await findDiscount({ ctx, input: { customerId: input.id } }) };
}

/** Shorter terms have no trigram to look up: they match a prefix only. */
export const SUBSTRING_MIN_LENGTH = 3;

/**
 * Customers matching `q`, case-insensitive: a prefix of the email or the name (the btree
 * text_pattern_ops indexes); from SUBSTRING_MIN_LENGTH characters on, anywhere in either (the
 * trigram indexes of migration 0022), prefix matches first. LIKE's wildcards are escaped.
 */
export async function listCustomers({ ctx, input }: Verb<Page & { q?: string }>): Promise<{ rows: CustomerRow[] } & PageInfo> {
  const list = listQuery("customers", ctx.accountId, {});
  if (!input.q) return pageOf(list.table, list.where, input, list.options);
  const term = input.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  const prefix = or(sql`lower(${customers.email}) like ${`${term}%`}`, sql`lower(${customers.name}) like ${`${term}%`}`);
  if ([...input.q].length < SUBSTRING_MIN_LENGTH) return pageOf(list.table, and(list.where, prefix), input, { search: true });
  const anywhere = or(sql`lower(${customers.email}) like ${`%${term}%`}`, sql`lower(${customers.name}) like ${`%${term}%`}`);
  const rank = sql<number>`(case when ${prefix} then 0 else 1 end)`;
  return pageOf(list.table, and(list.where, anywhere), input, { search: true, rank });
}

export async function updateCustomer({
  ctx,
  input,
}: Verb<{ id: string; changes: z.output<typeof CustomerUpdateInput> }>): Promise<CustomerRow> {
  return withChangeTransaction(async (tx) => {
    const before = await lockCustomer(tx, ctx.accountId, input.id);
    const { changes } = input;
    if (changes.default_tax_rate && changes.default_tax_rate !== before.defaultTaxRate) {
      await taxRatesOf(tx, ctx.accountId, [changes.default_tax_rate], "default_tax_rate");
    }
    if (changes.default_payment_method) await checkDefaultPaymentMethod(tx, ctx.accountId, before.id, changes.default_payment_method);
    const next = {
      email: changes.email ?? before.email,
      name: changes.name === undefined ? before.name : changes.name,
      address: changes.address === undefined ? before.address : postalAddress(changes.address),
      preferredLocale: changes.preferred_locale === undefined ? before.preferredLocale : changes.preferred_locale,
      taxIds: changes.tax_ids ?? before.taxIds,
      invoiceEmails: changes.invoice_emails ?? before.invoiceEmails,
      defaultTaxRate: changes.default_tax_rate === undefined ? before.defaultTaxRate : changes.default_tax_rate,
      defaultPaymentMethod: changes.default_payment_method === undefined ? before.defaultPaymentMethod : changes.default_payment_method,
      currency: changes.currency ?? before.currency,
      customFields: patchRecord(before.customFields, changes.custom_fields),
      metadata: patchRecord(before.metadata, changes.metadata),
    };
    if (next.currency !== before.currency) {
      const holds = await currencyHolds(tx, before);
      if (holds.length > 0) throw currencyHeld(before, next.currency!, holds);
    }
    const unchanged =
      next.currency === before.currency &&
      next.email === before.email &&
      next.name === before.name &&
      JSON.stringify(postalAddress(next.address)) === JSON.stringify(postalAddress(before.address)) &&
      next.preferredLocale === before.preferredLocale &&
      next.defaultTaxRate === before.defaultTaxRate &&
      next.defaultPaymentMethod === before.defaultPaymentMethod &&
      JSON.stringify(next.taxIds) === JSON.stringify(before.taxIds) &&
      JSON.stringify(next.invoiceEmails) === JSON.stringify(before.invoiceEmails) &&
      JSON.stringify(next.customFields) === JSON.stringify(before.customFields) &&
      JSON.stringify(next.metadata) === JSON.stringify(before.metadata);
    // No state change, no event.
    if (unchanged) return before;

    const after = one(await tx
      .update(customers)
      .set({ ...next, updated: ctx.now() })
      .where(eq(customers.id, before.id))
      .returning());
    await emitEvent(tx, ctx, {
      type: "customer.updated",
      aggregateId: before.id,
      data: customerState(after, ctx.livemode),
      previousData: customerState(before, ctx.livemode),
    });
    return after;
  });
}

/**
 * The customer's default payment method must be one of theirs, attached (not detached). Read
 * without a lock: a detach racing this update waits for the customer's lock, then finds the
 * method is the default and clears it (lib/payment-methods/service.ts), so none stays behind.
 */
async function checkDefaultPaymentMethod(tx: ChangeTransaction, accountId: string, customerId: string, method: string): Promise<void> {
  const [attached] = await tx
    .select({ id: paymentMethods.id })
    .from(paymentMethods)
    .where(and(eq(paymentMethods.accountId, accountId), eq(paymentMethods.customerId, customerId), eq(paymentMethods.id, method), isNull(paymentMethods.detachedAt)));
  if (!attached) {
    throw validationFailed([
      {
        field: "default_payment_method",
        message: `'${method}' is not a payment method attached to customer '${customerId}': attach one first (POST /customers/${customerId}/payment-methods answers its pm_ id).`,
      },
    ]);
  }
}

/**
 * Sets (or clears) the customer's default payment method from a payment method's own change (a
 * method saved or detached), in the caller's transaction, with `customer.updated`; nothing when it
 * is already that. `onlyIfNone`: only when the customer has no default yet. A deleted customer is
 * left alone.
 */
export async function setDefaultPaymentMethod(tx: ChangeTransaction, ctx: ServiceContext, customerId: string, method: string | null, options: { onlyIfNone?: boolean; onlyIf?: string } = {}): Promise<void> {
  const [before] = await tx.select().from(customers).where(and(live(ctx.accountId), eq(customers.id, customerId))).for("update");
  if (!before || before.defaultPaymentMethod === method) return;
  if (options.onlyIfNone && before.defaultPaymentMethod !== null) return;
  if (options.onlyIf !== undefined && before.defaultPaymentMethod !== options.onlyIf) return;
  const after = one(await tx.update(customers).set({ defaultPaymentMethod: method, updated: ctx.now() }).where(eq(customers.id, before.id)).returning());
  await emitEvent(tx, ctx, { type: "customer.updated", aggregateId: before.id, data: customerState(after, ctx.livemode), previousData: customerState(before, ctx.livemode) });
}

export async function deleteCustomer({ ctx, input }: Verb<{ id: string }>): Promise<{ id: string }> {
  return withChangeTransaction(async (tx) => {
    const before = await lockCustomer(tx, ctx.accountId, input.id);
    const now = ctx.now();
    const after = one(await tx
      .update(customers)
      .set({ deletedAt: now, updated: now })
      .where(eq(customers.id, before.id))
      .returning());
    await emitEvent(tx, ctx, {
      type: "customer.deleted",
      aggregateId: before.id,
      data: { ...customerState(after, ctx.livemode), deleted: true },
      previousData: customerState(before, ctx.livemode),
    });
    return { id: before.id };
  });
}
