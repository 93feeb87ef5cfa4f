import { and, eq, isNull } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { listQuery, pageOf } from "@/db/page";
import { webhookEndpoints } from "@/db/schema";
import type { Page, PageInfo } from "@/lib/api/pagination";
import { config } from "@/lib/config";
import type { Verb } from "@/lib/context";
import { notFound, validationFailed } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import { assertPublicLiteral } from "./network";
import type { WebhookEndpointCreateInput, WebhookEndpointUpdateInput } from "./schema";
import { encryptSecret, generateSigningSecret } from "./secrets";
import type { WebhookEndpointRow } from "./serialize";
import { realNow } from "@/lib/clock/time";

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
  const db = await getDb();
  const endpoint = one(await db
    .insert(webhookEndpoints)
    .values({
      id: newId("webhookEndpoint"),
      accountId: ctx.accountId,
      url: input.url,
      events: input.events,
      description: input.description ?? null,
      enabled: input.enabled ?? true,
      maxDeliveriesPerSecond: input.max_deliveries_per_second ?? null,
      secretCiphertext: encryptSecret(secret),
      created: now,
      updated: now,
    })
    .returning());
  return { endpoint: endpoint, secret };
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

export async function updateWebhookEndpoint({
  ctx,
  input,
}: Verb<{ id: string; changes: z.output<typeof WebhookEndpointUpdateInput> }>): Promise<WebhookEndpointRow> {
  const { changes } = input;
  if (changes.url) assertDeliverable(changes.url);
  const db = await getDb();
  const [row] = await db
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
    .where(and(live(ctx.accountId), eq(webhookEndpoints.id, input.id)))
    .returning();
  if (!row) throw notFound("webhook endpoint", input.id);
  return row;
}

/** Deleted endpoints receive nothing more; their deliveries stay readable. */
export async function deleteWebhookEndpoint({ ctx, input }: Verb<{ id: string }>): Promise<{ id: string }> {
  const db = await getDb();
  const [row] = await db
    .update(webhookEndpoints)
    .set({ deletedAt: realNow(), enabled: false, updated: realNow() })
    .where(and(live(ctx.accountId), eq(webhookEndpoints.id, input.id)))
    .returning({ id: webhookEndpoints.id });
  if (!row) throw notFound("webhook endpoint", input.id);
  return row;
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
  const db = await getDb();
  const endpoint = await db.transaction(async (tx) => {
    const [current] = await tx
      .select({ secretCiphertext: webhookEndpoints.secretCiphertext })
      .from(webhookEndpoints)
      .where(and(live(ctx.accountId), eq(webhookEndpoints.id, input.id)))
      .for("update");
    if (!current) throw notFound("webhook endpoint", input.id);
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
    return row;
  });
  return { endpoint, secret };
}
