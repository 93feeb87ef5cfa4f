/*
 * What each checkout-session status allows, declared once. Pure (values only): the service's 409
 * guard (service.ts assertOpen) reads it, and so does the dashboard's Expire button
 * (components/objects/object-actions.tsx).
 */
import type { CheckoutStatus } from "./statuses";

/** Only an open session changes: it is completed, updated, deleted or expired (409 otherwise). */
export const CHANGEABLE_SESSION_STATUSES: readonly CheckoutStatus[] = ["open"];

export const isChangeableSession = (session: { status: string }): boolean => (CHANGEABLE_SESSION_STATUSES as readonly string[]).includes(session.status);

export const canExpireSession = isChangeableSession;

/** Every action the dashboard offers with whether the session allows it. */
export const checkoutSessionActions = (session: { status: string }) => ({ expire: canExpireSession(session) });
