import { and, eq, inArray, isNull } from "drizzle-orm";
import type { z } from "zod";
import { getDb, type Executor } from "@/db/client";
import { accounts, portalConfigurations, prices } from "@/db/schema";
import type { ServiceContext, Verb } from "@/lib/context";
import { validationFailed, type FieldError } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction } from "@/lib/events/transaction";
import { DEFAULT_PORTAL_SETTINGS, type PortalConfigurationObject, type PortalConfigurationUpdateInput, type PortalSettings } from "./schema";

type Stored = { settings: PortalSettings; updated: Date | null };

/** The account's portal settings (the defaults until it saves some): the one reader, for the API and the portal. */
export async function portalSettingsOf(executor: Executor, accountId: string): Promise<Stored> {
  const [row] = await executor.select().from(portalConfigurations).where(eq(portalConfigurations.accountId, accountId));
  if (!row) return { settings: DEFAULT_PORTAL_SETTINGS, updated: null };
  // A row saved before a field existed has that field's default (jsonb keeps what was saved).
  const update = { ...DEFAULT_PORTAL_SETTINGS.features.subscription_update, ...row.settings.features.subscription_update };
  return { settings: { ...row.settings, features: { ...row.settings.features, subscription_update: update } }, updated: row.updated };
}

export function serializePortalConfiguration(stored: Stored, livemode: boolean): PortalConfigurationObject {
  return { object: "portal_configuration", ...stored.settings, plan_change_rule: "change_request", livemode, updated: stored.updated?.toISOString() ?? null };
}

export async function getPortalConfiguration({ ctx }: Verb<Record<string, never>>): Promise<Stored> {
  return portalSettingsOf(await getDb(), ctx.accountId);
}

function merged(before: PortalSettings, input: z.output<typeof PortalConfigurationUpdateInput>): PortalSettings {
  const f = input.features ?? {};
  const b = before.features;
  return {
    features: {
      invoice_history: f.invoice_history ?? b.invoice_history,
      customer_update: f.customer_update ?? b.customer_update,
      payment_method_update: f.payment_method_update ?? b.payment_method_update,
      subscription_cancel: {
        ...b.subscription_cancel,
        ...f.subscription_cancel,
        cancellation_reasons: { ...b.subscription_cancel.cancellation_reasons, ...f.subscription_cancel?.cancellation_reasons },
      },
      subscription_pause: f.subscription_pause ?? b.subscription_pause,
      subscription_update: {
        ...b.subscription_update,
        ...f.subscription_update,
        quantity: { ...b.subscription_update.quantity, ...f.subscription_update?.quantity },
      },
    },
    branding: { ...before.branding, ...input.branding },
    default_return_url: input.default_return_url === undefined ? before.default_return_url : input.default_return_url,
  };
}

/** What the merged settings must satisfy together (each field alone was checked by the schema). */
async function checkSettings(executor: Executor, ctx: ServiceContext, settings: PortalSettings): Promise<void> {
  const errors: FieldError[] = [];
  const update = settings.features.subscription_update;
  if (update.quantity.minimum > update.quantity.maximum) {
    errors.push({ field: "features.subscription_update.quantity.minimum", message: "Must not be above maximum." });
  }
  if (update.enabled && update.prices.length === 0) {
    errors.push({ field: "features.subscription_update.prices", message: "Switching plans needs at least one price." });
  }
  if (new Set(update.prices).size !== update.prices.length) {
    errors.push({ field: "features.subscription_update.prices", message: "A price is listed twice." });
  }
  if (update.prices.length > 0) {
    const rows = await executor
      .select()
      .from(prices)
      .where(and(eq(prices.accountId, ctx.accountId), inArray(prices.id, update.prices), isNull(prices.deletedAt)));
    for (const id of update.prices) {
      const price = rows.find((row) => row.id === id);
      if (!price) errors.push({ field: "features.subscription_update.prices", message: `No such price: '${id}'.` });
      else if (!price.active) errors.push({ field: "features.subscription_update.prices", message: `Price '${id}' is archived.` });
      else if (price.type !== "recurring") errors.push({ field: "features.subscription_update.prices", message: `Price '${id}' is one_time.` });
    }
  }
  if (errors.length > 0) throw validationFailed(errors, errors[0]!.message);
}

/** Key order aside (jsonb stores keys in its own order), the same JSON value. */
function sameJson(a: unknown, b: unknown): boolean {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value !== null && typeof value === "object"
        ? Object.fromEntries(Object.entries(value).sort(([x], [y]) => x.localeCompare(y)).map(([key, inner]) => [key, sorted(inner)]))
        : value;
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

/** Changes the named sections; `portal_configuration.updated` when anything changed (aggregate: the account). */
export async function updatePortalConfiguration({ ctx, input }: Verb<z.output<typeof PortalConfigurationUpdateInput>>): Promise<Stored> {
  return withChangeTransaction(async (tx) => {
    const now = ctx.now();
    // The account's row serializes changes, the first save (no configuration row yet) included.
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, ctx.accountId)).for("update");
    const beforeStored = await portalSettingsOf(tx, ctx.accountId);
    const settings = merged(beforeStored.settings, input);
    await checkSettings(tx, ctx, settings);
    if (sameJson(settings, beforeStored.settings)) return beforeStored;
    await tx
      .insert(portalConfigurations)
      .values({ accountId: ctx.accountId, settings, updated: now })
      .onConflictDoUpdate({ target: portalConfigurations.accountId, set: { settings, updated: now } });
    const after: Stored = { settings, updated: now };
    await emitEvent(tx, ctx, {
      type: "portal_configuration.updated",
      aggregateId: ctx.accountId,
      data: serializePortalConfiguration(after, ctx.livemode),
      previousData: serializePortalConfiguration(beforeStored, ctx.livemode),
    });
    return after;
  });
}
