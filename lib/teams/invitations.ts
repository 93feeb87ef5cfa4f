import { randomBytes } from "node:crypto";
import { base32crockford } from "@scure/base";
import { and, desc, eq, gt, isNull } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@/db/client";
import { invitations, organizations, users } from "@/db/schema";
import { hashToken } from "@/lib/auth/tokens";
import { hashPassword } from "@/lib/auth/passwords";
import { DAY_MS, realNow } from "@/lib/time";
import { ServiceError, validationFailed } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { one } from "@/lib/rows";
import { withChangeTransaction } from "@/lib/events/transaction";
import { emitMemberEvent } from "./audit";
import type { AuditMemberObject } from "./schema";
import { ROLES, roleAllows, type Role } from "@/lib/auth/roles";
import type { TeamContext } from "./members";

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * DAY_MS;
const TOKEN_PATTERN = /^inv_[0-9a-hjkmnp-tv-z]{32}$/;

export const CreateInvitationInput = z.strictObject({
  email: z.email("Enter a valid email address.").max(254).transform((email) => email.toLowerCase()),
  role: z.enum(ROLES),
});

export const AcceptInvitationInput = z.strictObject({
  token: z.string().max(100),
  name: z.string().trim().min(1, "Enter your name.").max(120),
  password: z.string().min(10, "Use at least 10 characters.").max(200),
});

export type InvitationStatus = "pending" | "expired";
export type InvitationView = { id: string; email: string; role: Role; created: Date; expiresAt: Date; status: InvitationStatus };

function fieldErrors(issues: z.core.$ZodIssue[]) {
  return validationFailed(issues.map((issue) => ({ field: issue.path.join("."), message: issue.message })));
}

/**
 * A new invitation: the token is returned here once (it is the link) and stored only as its
 * SHA-256. An admin invites up to admin; only an owner invites an owner.
 */
export async function createInvitation({ ctx, input }: { ctx: TeamContext; input: unknown }) {
  const parsed = CreateInvitationInput.safeParse(input);
  if (!parsed.success) throw fieldErrors(parsed.error.issues);
  const { email, role } = parsed.data;
  if (role === "owner" && !roleAllows(ctx.role, "owner")) {
    throw new ServiceError("forbidden", "Only an owner can invite an owner.");
  }
  const token = `inv_${base32crockford.encode(randomBytes(20)).toLowerCase()}`;
  const db = await getDb();
  const [member] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  if (member) throw validationFailed([{ field: "email", message: "Someone with this email already has an account." }]);
  const now = realNow();
  const row = await withChangeTransaction(async (tx) => {
    const inserted = one(
      await tx
      .insert(invitations)
      .values({
        id: newId("invitation"),
        organizationId: ctx.organizationId,
        email,
        role,
        tokenHash: hashToken(token),
        invitedBy: ctx.userId,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        created: now,
      })
      .returning(),
    );
    await emitMemberEvent(tx, ctx.organizationId, actorOf(ctx), { type: "member.invited", data: invitationObject(inserted, "invited"), previousData: null });
    return inserted;
  });
  return { invitation: view(row, now), token, path: `/invite/${token}` };
}

/** The acting member, as the audit events name them. */
export function actorOf(ctx: TeamContext) {
  return { userId: ctx.userId, requestId: ctx.requestId ?? null, source: ctx.source };
}

function invitationObject(row: typeof invitations.$inferSelect, status: "invited" | "invitation_revoked"): AuditMemberObject {
  return { id: row.id, object: "member", email: row.email, name: null, role: row.role, status, invitation: null };
}

function view(row: typeof invitations.$inferSelect, now: Date): InvitationView {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    created: row.created,
    expiresAt: row.expiresAt,
    status: row.expiresAt > now ? "pending" : "expired",
  };
}

/** The organization's open invitations (neither accepted nor revoked), newest first; expired ones say so. */
export async function listInvitations(organizationId: string): Promise<InvitationView[]> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(invitations)
    .where(and(eq(invitations.organizationId, organizationId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .orderBy(desc(invitations.created), desc(invitations.id))
    .limit(200);
  const now = realNow();
  return rows.map((row) => view(row, now));
}

/** Revokes an open invitation of the caller's organization; its link stops working at once. */
export async function revokeInvitation({ ctx, input }: { ctx: TeamContext; input: { invitationId: string } }): Promise<void> {
  await withChangeTransaction(async (tx) => {
  const revoked = await tx
    .update(invitations)
    .set({ revokedAt: realNow() })
    .where(
      and(
        eq(invitations.id, String(input.invitationId)),
        eq(invitations.organizationId, ctx.organizationId),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
      ),
    )
    .returning();
  const [row] = revoked;
  if (!row) throw new ServiceError("not_found", `No open invitation: '${String(input.invitationId)}'.`);
  await emitMemberEvent(tx, ctx.organizationId, actorOf(ctx), {
    type: "member.invitation_revoked",
    data: invitationObject(row, "invitation_revoked"),
    previousData: invitationObject(row, "invited"),
  });
  });
}

/** What the invitation page shows before the invitee signs up: null when the link does not work. */
export async function findOpenInvitation(token: string) {
  if (!TOKEN_PATTERN.test(token)) return null;
  const db = await getDb();
  const [row] = await db
    .select({ email: invitations.email, role: invitations.role, organization: organizations.name })
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.organizationId))
    .where(
      and(
        eq(invitations.tokenHash, hashToken(token)),
        isNull(invitations.acceptedAt),
        isNull(invitations.revokedAt),
        gt(invitations.expiresAt, realNow()),
      ),
    );
  return row ?? null;
}

const LINK_DOES_NOT_WORK = "This invitation link does not work: it was used, revoked or has expired. Ask for a new one.";

/**
 * The invitee's account: a password user of the inviting organization with the invited role and
 * email, whatever SIGNUP says. The invitation is used up in the same transaction (single use).
 */
export async function acceptInvitation(input: unknown): Promise<{ id: string; email: string; organizationId: string; role: Role }> {
  const parsed = AcceptInvitationInput.safeParse(input);
  if (!parsed.success) throw fieldErrors(parsed.error.issues);
  const { token, name, password } = parsed.data;
  if (!TOKEN_PATTERN.test(token)) throw new ServiceError("not_found", LINK_DOES_NOT_WORK);
  const passwordHash = await hashPassword(password);
  return withChangeTransaction(async (tx) => {
    const [invitation] = await tx
      .select()
      .from(invitations)
      .where(eq(invitations.tokenHash, hashToken(token)))
      .for("update");
    const now = realNow();
    if (!invitation || invitation.acceptedAt || invitation.revokedAt || invitation.expiresAt <= now) {
      throw new ServiceError("not_found", LINK_DOES_NOT_WORK);
    }
    const [existing] = await tx.select({ id: users.id }).from(users).where(eq(users.email, invitation.email));
    if (existing) throw new ServiceError("conflict", "An account with this email already exists. Sign in instead.");
    const id = newId("user");
    await tx.insert(users).values({
      id,
      organizationId: invitation.organizationId,
      email: invitation.email,
      name,
      passwordHash,
      role: invitation.role,
    });
    await tx
      .update(invitations)
      .set({ acceptedAt: now, acceptedUserId: id })
      .where(eq(invitations.id, invitation.id));
    // The new member is the actor: they accepted. The invitation page's request has no `req_` id of the API.
    await emitMemberEvent(tx, invitation.organizationId, { userId: id, requestId: newId("request") }, {
      type: "member.joined",
      data: { id, object: "member", email: invitation.email, name, role: invitation.role, status: "active", invitation: invitation.id },
      previousData: null,
    });
    return { id, email: invitation.email, organizationId: invitation.organizationId, role: invitation.role };
  });
}
