import { emitInOrganization } from "@/lib/auth/audit";
import type { ChangeTransaction } from "@/lib/events/transaction";
import type { AuditMemberObject } from "./schema";

export type MemberAuditType = "member.invited" | "member.invitation_revoked" | "member.joined" | "member.role_changed" | "member.removed";

/** Who changed the membership: the acting user, and the request (a server action's own `req_…` id). */
export type MemberActor = { userId: string; requestId: string | null; source?: { clientAddress: string | null; userAgent: string | null } };

/**
 * A membership audit event, in every account of the organization (members belong to the
 * organization; each account's trail shows who may enter it), in the change's own transaction, and
 * delivered like the other audit events (to the endpoints subscribed to the type).
 */
export async function emitMemberEvent(
  tx: ChangeTransaction,
  organizationId: string,
  actor: MemberActor,
  event: { type: MemberAuditType; data: AuditMemberObject; previousData: AuditMemberObject | null },
): Promise<void> {
  await emitInOrganization(tx, organizationId, actor, {
    type: event.type,
    aggregateId: event.data.id,
    data: event.data,
    previousData: event.previousData,
    metadata: { client_address: actor.source?.clientAddress ?? null, user_agent: actor.source?.userAgent ?? null },
  });
}
