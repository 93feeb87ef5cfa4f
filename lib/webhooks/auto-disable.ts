import { and, eq, isNotNull, isNull, lte, sql } from "drizzle-orm";
import type { Transaction } from "@/db/client";
import { accounts, eventDeliveries, webhookEndpoints } from "@/db/schema";
import { config } from "@/lib/config";
import { parseDelay } from "./schedule";

/** The threshold in force (WEBHOOK_AUTO_DISABLE_AFTER, default 5 days as Svix), or null when off. */
export function autoDisableAfter(): { text: string; ms: number } | null {
  const setting = config().webhooks.autoDisableAfter;
  return setting === "off" ? null : parseDelay(setting);
}

/**
 * Called with each recorded attempt, in its transaction. A success clears the endpoint's
 * `failing_since`; a failure sets it if unset, and once every attempt has failed for the
 * threshold, disables the endpoint with a reason and time. Times are the account's clock, so a
 * sandbox test clock can carry an endpoint through five failing days. The updates match no row
 * in the common case (healthy endpoint, or already failing), so they take no lock then.
 */
export async function noteAttemptOutcome(tx: Transaction, deliveryId: string, delivered: boolean): Promise<void> {
  const endpointId = sql`(select ${eventDeliveries.webhookEndpointId} from ${eventDeliveries} where ${eventDeliveries.id} = ${deliveryId})`;
  const isEndpoint = eq(webhookEndpoints.id, endpointId);
  if (delivered) {
    await tx.update(webhookEndpoints).set({ failingSince: null }).where(and(isEndpoint, isNotNull(webhookEndpoints.failingSince)));
    return;
  }
  const accountNow = sql`(select now() + ${accounts.clockOffsetMs} * interval '1 millisecond' from ${accounts} where ${accounts.id} = ${webhookEndpoints.accountId})`;
  await tx.update(webhookEndpoints).set({ failingSince: accountNow }).where(and(isEndpoint, isNull(webhookEndpoints.failingSince)));
  const threshold = autoDisableAfter();
  if (!threshold) return;
  await tx
    .update(webhookEndpoints)
    .set({
      enabled: false,
      disabledAt: accountNow,
      disabledReason: sql`'Every delivery attempt failed for ${sql.raw(threshold.text)} (since ' || to_char(${webhookEndpoints.failingSince} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || '), so the endpoint was disabled automatically.'`,
      updated: new Date(),
    })
    .where(
      and(
        isEndpoint,
        eq(webhookEndpoints.enabled, true),
        isNull(webhookEndpoints.deletedAt),
        lte(webhookEndpoints.failingSince, sql`${accountNow} - ${threshold.ms} * interval '1 millisecond'`),
      ),
    );
}
