import { eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts, users } from "@/db/schema";
import { accountClock } from "@/lib/time";
import type { ServiceContext } from "@/lib/context";
import { emitEvent, type EmitInput } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";

export type UserAuditType = "user.signed_in" | "user.sign_in_failed" | "user.signed_out" | "user.password_changed";
export type AuditSource = { clientAddress: string | null; userAgent: string | null };

/**
 * A user's audit event, in every account of the user's organization (a user belongs to the
 * organization, not to one account; each account's event trail shows who entered it), all in
 * one transaction: `within` the change's own when there is one (a password change).
 */
export async function emitUserEvent(
  type: UserAuditType,
  userId: string,
  source: AuditSource,
  within?: ChangeTransaction,
): Promise<void> {
  await withChangeTransaction(async (tx) => {
    const [user] = await tx.select().from(users).where(eq(users.id, userId));
    if (!user) return;
    const data = { id: user.id, object: "user", email: user.email, name: user.name, role: user.role };
    await emitInOrganization(tx, user.organizationId, { userId: user.id, requestId: null }, {
      type,
      aggregateId: user.id,
      data,
      previousData: null,
      metadata: { client_address: source.clientAddress, user_agent: source.userAgent },
    });
  }, within);
}

/**
 * One audit event in every account of an organization (users and members belong to the
 * organization; each account's trail shows who entered it or who may), acted by the user, in `tx`.
 */
export async function emitInOrganization(
  tx: ChangeTransaction,
  organizationId: string,
  actor: { userId: string; requestId: string | null },
  event: EmitInput,
): Promise<void> {
  const owned = await tx.select().from(accounts).where(eq(accounts.organizationId, organizationId)).orderBy(accounts.id);
  for (const account of owned) {
    const ctx: ServiceContext = {
      accountId: account.id,
      livemode: account.livemode,
      actor: { type: "user", id: actor.userId },
      correlationId: null,
      ...(actor.requestId ? { requestId: actor.requestId } : {}),
      now: accountClock(account.clockOffsetMs),
    };
    await emitEvent(tx, ctx, event);
  }
}

/** The id of the user with this email, if any (a failed sign-in of a known user is audited). */
export async function userIdByEmail(email: string): Promise<string | null> {
  const db = await getDb();
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email.trim().toLowerCase()));
  return user?.id ?? null;
}
