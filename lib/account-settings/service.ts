import { eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts } from "@/db/schema";
import type { Verb } from "@/lib/context";
import { notFound } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction } from "@/lib/events/transaction";
import { one } from "@/lib/rows";
import { taxRatesOf } from "@/lib/tax-rates/service";
import { SETTINGS_FIELDS, type AccountSettingsChanges, type SettingName } from "./schema";
import { serializeAccountSettings, type AccountRow } from "./serialize";

type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

/** Fails the typecheck when a setting has no column of its camelCase name on `accounts`. */
const COLUMNS_EXIST: { [K in SettingName]: Camel<K> extends keyof AccountRow ? true : never } = Object.fromEntries(
  Object.keys(SETTINGS_FIELDS).map((name) => [name, true]),
) as { [K in SettingName]: Camel<K> extends keyof AccountRow ? true : never };

const columnOf = (name: SettingName) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()) as Camel<SettingName>;

export async function getAccountSettings({ ctx }: Verb<unknown>): Promise<AccountRow> {
  const db = await getDb();
  const [row] = await db.select().from(accounts).where(eq(accounts.id, ctx.accountId));
  if (!row) throw notFound("account", ctx.accountId);
  return row;
}

/** Sets the given settings (null clears one); emits `account.settings_updated` when anything changed. */
export async function updateAccountSettings({ ctx, input }: Verb<AccountSettingsChanges>): Promise<AccountRow> {
  return withChangeTransaction(async (tx) => {
    const [before] = await tx.select().from(accounts).where(eq(accounts.id, ctx.accountId)).for("update");
    if (!before) throw notFound("account", ctx.accountId);
    if (input.default_tax_rate && input.default_tax_rate !== before.defaultTaxRate) {
      await taxRatesOf(tx, ctx.accountId, [input.default_tax_rate], "default_tax_rate");
    }
    const set: Partial<Record<Camel<SettingName>, unknown>> = {};
    for (const name of Object.keys(COLUMNS_EXIST) as SettingName[]) {
      const value = input[name];
      if (value === undefined) continue;
      set[columnOf(name)] = value;
    }
    const previous = serializeAccountSettings(before);
    const changed = Object.keys(set).length > 0 && JSON.stringify(serializeAccountSettings({ ...before, ...set } as AccountRow)) !== JSON.stringify(previous);
    // No state change, no event.
    if (!changed) return before;
    const after = one(await tx.update(accounts).set(set as Partial<AccountRow>).where(eq(accounts.id, ctx.accountId)).returning());
    await emitEvent(tx, ctx, {
      type: "account.settings_updated",
      aggregateId: ctx.accountId,
      data: serializeAccountSettings(after),
      previousData: previous,
    });
    return after;
  });
}
