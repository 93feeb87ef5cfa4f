import { randomBytes } from "node:crypto";
import { and, eq, gt, isNull } from "drizzle-orm";
import type { z } from "zod";
import { getDb } from "@/db/client";
import { accounts, customers, portalSessions } from "@/db/schema";
import { hashToken } from "@/lib/auth/tokens";
import { accountClock, HOUR_MS, MINUTE_MS } from "@/lib/time";
import { config, publicBaseUrl } from "@/lib/config";
import type { ServiceContext, Verb } from "@/lib/context";
import { ServiceError, validationFailed } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import { getSubscription } from "@/lib/subscriptions/service";
import { getCustomer } from "@/lib/customers/service";
import type { PortalFlow, PortalSessionCreateInput, PortalSessionObject } from "./schema";
import { portalSettingsOf } from "./service";

/* Portal sessions: the single-use link (hashed), then the browser session it starts (hashed cookie). */

export const PORTAL_LINK_TTL_MS = HOUR_MS;
export const PORTAL_IDLE_MS = 30 * MINUTE_MS;
/** `last_seen_at` is written at most this often per session (a page view need not always write). */
const LAST_SEEN_RESOLUTION_MS = MINUTE_MS;
/** The cookie's name; its path is `/portal`, so it never reaches `/api` or the dashboard. */
export const PORTAL_COOKIE = "portal_session";

type SessionRow = typeof portalSessions.$inferSelect;

/** 32 random bytes, base64url: a link's or a cookie's token (43 characters). */
export const newToken = () => randomBytes(32).toString("base64url");
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export const portalLinkUrl = (token: string) => `${publicBaseUrl()}/portal/start/${token}`;

export function serializePortalSession(row: SessionRow, url: string, livemode: boolean): PortalSessionObject {
  return {
    object: "portal_session",
    id: row.id,
    url,
    expires_at: row.expiresAt.toISOString(),
    return_url: row.returnUrl,
    customer: row.customerId,
    flow: row.flow ?? null,
    livemode,
    created: row.created.toISOString(),
  };
}

/**
 * A new session for one of the account's customers. The link's token is answered once (in `url`)
 * and kept only as its SHA-256, as API tokens are. No event: its only new fact is the link itself.
 */
export async function createPortalSession({
  ctx,
  input,
}: Verb<z.output<typeof PortalSessionCreateInput>>): Promise<{ row: SessionRow; url: string }> {
  const customer = await getCustomer({ ctx, input: { id: input.customer } }).catch((error: unknown) => {
    if (error instanceof ServiceError && error.category === "not_found") {
      throw validationFailed([{ field: "customer", message: `No such customer: '${input.customer}'.` }]);
    }
    throw error;
  });
  let flow: PortalFlow | null = null;
  if (input.flow) {
    const subscription = input.flow.subscription ?? null;
    if (input.flow.type !== "payment_method_update" && subscription === null) {
      throw validationFailed([{ field: "flow.subscription", message: `A ${input.flow.type} flow names the subscription.` }]);
    }
    if (subscription !== null) {
      const found = await getSubscription({ ctx, input: { id: subscription } }).catch((error: unknown) => {
        if (error instanceof ServiceError && error.category === "not_found") return null;
        throw error;
      });
      if (!found || found.subscription.customerId !== customer.id) {
        throw validationFailed([{ field: "flow.subscription", message: `No such subscription of customer '${customer.id}': '${subscription}'.` }]);
      }
    }
    flow = { type: input.flow.type, subscription };
  }
  const token = newToken();
  const now = ctx.now();
  const db = await getDb();
  const row = one(
    await db
      .insert(portalSessions)
      .values({
        id: newId("portalSession"),
        accountId: ctx.accountId,
        customerId: customer.id,
        returnUrl: input.return_url ?? null,
        flow,
        linkTokenHash: hashToken(token),
        expiresAt: new Date(now.getTime() + PORTAL_LINK_TTL_MS),
        created: now,
      })
      .returning(),
  );
  return { row, url: portalLinkUrl(token) };
}

/** Where a refused link sends the customer back: its return URL, else the configuration's default. */
async function returnUrlOf(row: SessionRow): Promise<string | null> {
  return row.returnUrl ?? (await portalSettingsOf(await getDb(), row.accountId)).settings.default_return_url;
}

export type OpenedLink =
  | { ok: true; cookieToken: string; session: SessionRow }
  | { ok: false; reason: "used" | "expired" | "unknown"; returnUrl: string | null };

/**
 * Opens a link: once, before it expires (the account's clock). One conditional update, so two
 * concurrent opens cannot both win. The cookie's token is answered once and kept hashed.
 */
export async function openPortalLink(token: string): Promise<OpenedLink> {
  if (!TOKEN.test(token)) return { ok: false, reason: "unknown", returnUrl: null };
  const db = await getDb();
  const hash = hashToken(token);
  const [found] = await db
    .select({ session: portalSessions, clockOffsetMs: accounts.clockOffsetMs })
    .from(portalSessions)
    .innerJoin(accounts, eq(accounts.id, portalSessions.accountId))
    .where(eq(portalSessions.linkTokenHash, hash));
  if (!found) return { ok: false, reason: "unknown", returnUrl: null };
  const now = accountClock(found.clockOffsetMs)();
  const cookieToken = newToken();
  const [opened] = await db
    .update(portalSessions)
    .set({ linkUsedAt: now, cookieTokenHash: hashToken(cookieToken), lastSeenAt: now })
    .where(and(eq(portalSessions.id, found.session.id), isNull(portalSessions.linkUsedAt), gt(portalSessions.expiresAt, now)))
    .returning();
  if (opened) return { ok: true, cookieToken, session: opened };
  const reason = found.session.linkUsedAt !== null ? "used" : "expired";
  return { ok: false, reason, returnUrl: await returnUrlOf(found.session) };
}

/** What a refused link's page says: looked up by the same token, read only. */
export async function refusedLink(token: string): Promise<{ reason: "used" | "expired" | "unknown"; returnUrl: string | null }> {
  if (!TOKEN.test(token)) return { reason: "unknown", returnUrl: null };
  const db = await getDb();
  const [row] = await db.select().from(portalSessions).where(eq(portalSessions.linkTokenHash, hashToken(token)));
  if (!row) return { reason: "unknown", returnUrl: null };
  return { reason: row.linkUsedAt !== null ? "used" : "expired", returnUrl: await returnUrlOf(row) };
}

/** A live portal session: who it is for, and the context its changes run with (actor `customer`). */
export type PortalSession = {
  id: string;
  customerId: string;
  returnUrl: string | null;
  flow: PortalFlow | null;
  ctx: ServiceContext;
};

/**
 * The session behind a cookie's token, or null: unknown, idle for 30 minutes, older than its
 * absolute lifetime (PORTAL_SESSION_MAX_AGE_SECONDS from its link's opening, 12 hours by default;
 * both on the account's clock), or its customer deleted. The lifetime bounds what a stolen cookie
 * kept busy can do, which the idle limit alone never would. A live one's `last_seen_at` moves on (at most once a minute).
 */
export async function portalSessionOf(cookieToken: string | undefined, correlationId: string | null = null): Promise<PortalSession | null> {
  if (cookieToken === undefined || !TOKEN.test(cookieToken)) return null;
  const db = await getDb();
  const [found] = await db
    .select({ session: portalSessions, livemode: accounts.livemode, clockOffsetMs: accounts.clockOffsetMs, customerDeletedAt: customers.deletedAt })
    .from(portalSessions)
    .innerJoin(accounts, eq(accounts.id, portalSessions.accountId))
    .innerJoin(customers, eq(customers.id, portalSessions.customerId))
    .where(eq(portalSessions.cookieTokenHash, hashToken(cookieToken)));
  if (!found || found.customerDeletedAt !== null) return null;
  const now = accountClock(found.clockOffsetMs);
  const { session } = found;
  const lastSeen = session.lastSeenAt ?? session.created;
  if (now().getTime() - lastSeen.getTime() >= PORTAL_IDLE_MS) return null;
  const started = session.linkUsedAt ?? session.created;
  if (now().getTime() - started.getTime() >= config().portalSessionMaxAgeMs) return null;
  if (now().getTime() - lastSeen.getTime() >= LAST_SEEN_RESOLUTION_MS) {
    await db.update(portalSessions).set({ lastSeenAt: now() }).where(eq(portalSessions.id, session.id));
  }
  return {
    id: session.id,
    customerId: session.customerId,
    returnUrl: session.returnUrl,
    flow: session.flow ?? null,
    ctx: {
      accountId: session.accountId,
      livemode: found.livemode,
      actor: { type: "customer", id: session.customerId, portalSession: session.id },
      correlationId,
      now,
    },
  };
}

/** The return link of a live session: its own, else the configuration's default. */
export async function portalReturnUrl(session: PortalSession): Promise<string | null> {
  return session.returnUrl ?? (await portalSettingsOf(await getDb(), session.ctx.accountId)).settings.default_return_url;
}

/**
 * Whether a portal POST comes from this host: a browser's request names its Origin, which must be
 * this host (the session cookie is SameSite=Lax); none means no browser's cross-site form. Every
 * portal route that changes something checks it (app/portal/act, app/portal/payment-method/setup).
 */
export function sameHost(request: { headers: Headers }): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  try {
    return new URL(origin).host === request.headers.get("host");
  } catch {
    return false;
  }
}
