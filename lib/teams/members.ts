import { and, asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { getDb, type Executor } from "@/db/client";
import { invitations, users } from "@/db/schema";
import { ServiceError } from "@/lib/errors";
import { withChangeTransaction } from "@/lib/events/transaction";
import { revokeOrganizationTokens } from "./member-tokens";
import { emitMemberEvent } from "./audit";
import { actorOf } from "./invitations";
import type { AuditMemberObject } from "./schema";

function memberObject(member: { id: string; email: string; name: string | null; role: Role }, status: "active" | "removed"): AuditMemberObject {
  return { id: member.id, object: "member", email: member.email, name: member.name, role: member.role, status, invitation: null };
}
import { ROLES, roleAllows, type Role } from "@/lib/auth/roles";

/** Who acts on the organization's members: a signed-in user, with the role they have now. */
export type TeamContext = {
  userId: string;
  organizationId: string;
  role: Role;
  /** The server action's own `req_…` id: its problem's `request_id` and its audit events' (lib/teams/action.ts). */
  requestId?: string;
  source?: { clientAddress: string | null; userAgent: string | null };
};

export type Member = { id: string; email: string; name: string | null; role: Role; created: Date };

/** The organization's members, owners first, then by when they joined. */
export async function listMembers(organizationId: string): Promise<Member[]> {
  const db = await getDb();
  return db
    .select({ id: users.id, email: users.email, name: users.name, role: users.role, created: users.created })
    .from(users)
    .where(eq(users.organizationId, organizationId))
    .orderBy(sql`case ${users.role} when 'owner' then 0 when 'admin' then 1 when 'developer' then 2 else 3 end`, asc(users.created), asc(users.id));
}

/** The member's role now, or null (no such user in the organization). */
export async function memberRole(organizationId: string, userId: string): Promise<Role | null> {
  const db = await getDb();
  const [row] = await db
    .select({ role: users.role })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.organizationId, organizationId)));
  return row?.role ?? null;
}

/**
 * The member to change, locked, with the organization's owners locked too, so that two
 * concurrent demotions cannot leave it without an owner.
 */
async function lockMember(tx: Executor, ctx: TeamContext, userId: string) {
  const owners = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.organizationId, ctx.organizationId), eq(users.role, "owner")))
    .orderBy(asc(users.id))
    .for("update");
  const [member] = await tx
    .select({ id: users.id, role: users.role, email: users.email, name: users.name })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.organizationId, ctx.organizationId)))
    .for("update");
  if (!member) throw new ServiceError("not_found", `No such member: '${userId}'.`);
  if (member.role === "owner" && !roleAllows(ctx.role, "owner")) {
    throw new ServiceError("forbidden", "Only an owner can change or remove an owner.");
  }
  return { member, owners: owners.length };
}

const LAST_OWNER = "An organization keeps at least one owner: make someone else an owner first.";

export const ChangeRoleInput = z.strictObject({ userId: z.string().max(100), role: z.enum(ROLES) });

/** Changes a member's role. Owners are made and unmade by owners; the last owner stays one. */
export async function changeMemberRole({ ctx, input }: { ctx: TeamContext; input: unknown }): Promise<Member> {
  const parsed = ChangeRoleInput.safeParse(input);
  if (!parsed.success) throw new ServiceError("validation", "Choose one of the roles: owner, admin, developer, viewer.");
  const { userId, role } = parsed.data;
  if (role === "owner" && !roleAllows(ctx.role, "owner")) throw new ServiceError("forbidden", "Only an owner can make an owner.");
  return withChangeTransaction(async (tx) => {
    const { member, owners } = await lockMember(tx, ctx, userId);
    if (member.role === "owner" && role !== "owner" && owners <= 1) throw new ServiceError("conflict", LAST_OWNER);
    const [updated] = await tx
      .update(users)
      .set({ role })
      .where(eq(users.id, member.id))
      .returning({ id: users.id, email: users.email, name: users.name, role: users.role, created: users.created });
    if (!updated) throw new ServiceError("not_found", `No such member: '${userId}'.`);
    // A change that changes nothing emits nothing.
    if (member.role !== role) {
      await emitMemberEvent(tx, ctx.organizationId, actorOf(ctx), {
        type: "member.role_changed",
        data: memberObject(updated, "active"),
        previousData: memberObject(member, "active"),
      });
    }
    return updated;
  });
}

/**
 * Removes a member: their user is deleted, which ends their sessions at once (a session names a
 * user that must still exist). The last owner cannot be removed. With `revokeTokens`, every active
 * API token they made is revoked in the same change (each with its `api_token.revoked` event);
 * without, those tokens keep working and are listed on the Members page (lib/teams/member-tokens.ts).
 */
export async function removeMember({ ctx, input }: { ctx: TeamContext; input: { userId: string; revokeTokens?: boolean } }): Promise<{ tokensRevoked: number }> {
  const userId = String(input.userId);
  return withChangeTransaction(async (tx) => {
    const { member, owners } = await lockMember(tx, ctx, userId);
    if (member.role === "owner" && owners <= 1) throw new ServiceError("conflict", LAST_OWNER);
    // Invitations keep who sent them only while that user exists.
    await tx.update(invitations).set({ invitedBy: null }).where(eq(invitations.invitedBy, member.id));
    await tx.delete(users).where(eq(users.id, member.id));
    await emitMemberEvent(tx, ctx.organizationId, actorOf(ctx), {
      type: "member.removed",
      data: memberObject(member, "removed"),
      previousData: memberObject(member, "active"),
    });
    const tokensRevoked = input.revokeTokens === true ? await revokeOrganizationTokens(ctx, { createdBy: member.id }, tx) : 0;
    return { tokensRevoked };
  });
}
