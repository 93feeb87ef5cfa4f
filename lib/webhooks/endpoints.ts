import { and, eq, isNull } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { webhookEndpoints } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import { config } from "@/lib/config";
import type { ServiceContext, Verb } from "@/lib/context";
import { auditMetadata } from "@/lib/events/audit";
import type { EventType } from "@/lib/events/catalogue";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { notFound, validationFailed } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import { assertPublicLiteral } from "./network";
import type { WebhookEndpointCreateInput, WebhookEndpointUpdateInput } from "./schema";
import { encryptSecret, generateSigningSecret } from "@/lib/secrets";
import { serializeWebhookEndpoint, type WebhookEndpointRow } from "./serialize";
import { realNow } from "@/lib/time";

const live = (accountId: string) => and(eq(webhookEndpoints.accountId, accountId), isNull(webhookEndpoints.deletedAt));

/**
 * A URL known not to be public (an IP literal on a private network, or `localhost`) is refused at
 * once, by the same rule as at send time; other DNS names are checked when sent.
 */
function assertDeliverable(url: string): void {
  const { allowPrivateNetworks, allowLoopback } = config().webhooks;
  if (allowPrivateNetworks) return;
  try {
    assertPublicLiteral(new URL(url).hostname, allowLoopback);
  } catch (error) {
    throw validationFailed([{ field: "url", message: (error as Error).message }]);
  }
}

export async function createWebhookEndpoint({
  ctx,
  input,
}: Verb<z.output<typeof WebhookEndpointCreateInput>>): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  assertDeliverable(input.url);
  const secret = generateSigningSecret();
  const now = realNow();
  const enabled = input.enabled ?? true;
  const endpoint = await withChangeTransaction(async (tx) => {
    // Inserted disabled, announced, then enabled: the new endpoint does not receive its own creation.
    const inserted = one(await tx
      .insert(webhookEndpoints)
      .values({
        id: newId("webhookEndpoint"),
        accountId: ctx.accountId,
        url: input.url,
        events: input.events,
        description: input.description ?? null,
        enabled: false,
        maxDeliveriesPerSecond: input.max_deliveries_per_second ?? null,
        secretCiphertext: encryptSecret(secret),
        created: now,
        updated: now,
      })
      .returning());
    const row = { ...inserted, enabled };
    await emitAudit(tx, ctx, "webhook_endpoint.created", row, null);
    if (enabled) await tx.update(webhookEndpoints).set({ enabled: true }).where(eq(webhookEndpoints.id, row.id));
    return row;
  });
  return { endpoint, secret };
}

/** An audit event of an endpoint (never its secrets: the WebhookEndpoint object has none). */
async function emitAudit(
  tx: ChangeTransaction,
  ctx: ServiceContext,
  type: EventType,
  row: WebhookEndpointRow,
  before: WebhookEndpointRow | null,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await emitEvent(tx, ctx, {
    type,
    aggregateId: row.id,
    data: { ...serializeWebhookEndpoint(row, ctx.livemode), ...extra },
    previousData: before ? serializeWebhookEndpoint(before, ctx.livemode) : null,
    metadata: auditMetadata(ctx),
    // An endpoint hears about other endpoints, not about itself (its rotation, its own update).
    skipEndpointId: row.id,
  });
}

async function lockedEndpoint(tx: ChangeTransaction, ctx: ServiceContext, id: string): Promise<WebhookEndpointRow> {
  const [row] = await tx.select().from(webhookEndpoints).where(and(live(ctx.accountId), eq(webhookEndpoints.id, id))).for("update");
  if (!row) throw notFound("webhook endpoint", id);
  return row;
}

export async function getWebhookEndpoint({ ctx, input }: Verb<{ id: string }>): Promise<WebhookEndpointRow> {
  const db = await getDb();
  const [row] = await db.select().from(webhookEndpoints).where(and(live(ctx.accountId), eq(webhookEndpoints.id, input.id)));
  if (!row) throw notFound("webhook endpoint", input.id);
  return row;
}

export async function listWebhookEndpoints({
  ctx,
  input,
}: Verb<Page>): Promise<{ rows: WebhookEndpointRow[] } & PageInfo> {
  const list = listQuery("webhook_endpoints", ctx.accountId, {});
  return pageOf(list.table, list.where, input, list.options);
}

const AUDITED_FIELDS = ["url", "events", "description", "maxDeliveriesPerSecond"] as const;

/**
 * Emits `webhook_endpoint.disabled` or `.enabled` when `enabled` changed, and `.updated` when
 * anything else did (both when both did); nothing when nothing changed.
 */
export async function updateWebhookEndpoint({
  ctx,
  input,
}: Verb<{ id: string; changes: z.output<typeof WebhookEndpointUpdateInput> }>): Promise<WebhookEndpointRow> {
  const { changes } = input;
  if (changes.url) assertDeliverable(changes.url);
  return withChangeTransaction(async (tx) => {
    const before = await lockedEndpoint(tx, ctx, input.id);
    const row = one(await tx
      .update(webhookEndpoints)
      .set({
        ...(changes.url !== undefined ? { url: changes.url } : {}),
        ...(changes.events !== undefined ? { events: changes.events } : {}),
        ...(changes.description !== undefined ? { description: changes.description } : {}),
        ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
        // Enabling (or disabling by hand) ends an automatic disablement and its failure streak.
        ...(changes.enabled !== undefined ? { disabledAt: null, disabledReason: null, failingSince: null } : {}),
        ...(changes.max_deliveries_per_second !== undefined ? { maxDeliveriesPerSecond: changes.max_deliveries_per_second } : {}),
        updated: realNow(),
      })
      .where(eq(webhookEndpoints.id, input.id))
      .returning());
    const changed = AUDITED_FIELDS.some((field) => JSON.stringify(before[field]) !== JSON.stringify(row[field]));
    if (changed) await emitAudit(tx, ctx, "webhook_endpoint.updated", row, before);
    if (before.enabled !== row.enabled) {
      await emitAudit(tx, ctx, row.enabled ? "webhook_endpoint.enabled" : "webhook_endpoint.disabled", row, before);
    }
    return row;
  });
}

/** Deleted endpoints receive nothing more; their deliveries stay readable. */
export async function deleteWebhookEndpoint({ ctx, input }: Verb<{ id: string }>): Promise<{ id: string }> {
  return withChangeTransaction(async (tx) => {
    const before = await lockedEndpoint(tx, ctx, input.id);
    const row = one(await tx
      .update(webhookEndpoints)
      .set({ deletedAt: realNow(), enabled: false, updated: realNow() })
      .where(eq(webhookEndpoints.id, input.id))
      .returning());
    await emitAudit(tx, ctx, "webhook_endpoint.deleted", row, before, { deleted: true });
    return { id: row.id };
  });
}

/**
 * A new signing secret, in force at once for every later attempt. With an overlap the replaced
 * secret keeps signing beside it until `now + overlapSeconds` (only one previous secret is kept:
 * rotating again during an overlap ends the older one). Expiry is real time, not the account's
 * clock: it bounds a real secret's exposure, like the signature timestamps receivers check.
 */
export async function rotateWebhookSecret({
  ctx,
  input,
}: Verb<{ id: string; overlapSeconds: number }>): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  const secret = generateSigningSecret();
  const now = realNow();
  const endpoint = await withChangeTransaction(async (tx) => {
    const current = await lockedEndpoint(tx, ctx, input.id);
    const overlap = input.overlapSeconds > 0;
    const row = one(await tx
      .update(webhookEndpoints)
      .set({
        secretCiphertext: encryptSecret(secret),
        previousSecretCiphertext: overlap ? current.secretCiphertext : null,
        previousSecretExpiresAt: overlap ? new Date(now.getTime() + input.overlapSeconds * 1000) : null,
        updated: now,
      })
      .where(eq(webhookEndpoints.id, input.id))
      .returning());
    await emitAudit(tx, ctx, "webhook_endpoint.secret_rotated", row, current);
    return row;
  });
  return { endpoint, secret };
}
