import { z } from "zod";

/**
 * A membership as the `member.*` audit events carry it (docs/teams.md, "Audit events"): an
 * invitation (`inv_…`, for `member.invited` and `member.invitation_revoked`) or a member (`user_…`,
 * for `member.joined`, `member.role_changed`, `member.removed`). Never a token or a password.
 */
export const AuditMember = z
  .object({
    id: z.string().meta({ description: "The invitation's id (`inv_…`) for invitation events, else the member's user id (`user_…`)." }),
    object: z.literal("member"),
    email: z.string(),
    name: z.string().nullable().meta({ description: "The member's name; null for an invitation." }),
    role: z.enum(["owner", "admin", "developer", "viewer"]),
    status: z.enum(["invited", "invitation_revoked", "active", "removed"]),
    invitation: z.string().nullable().meta({ description: "On `member.joined`: the invitation the member accepted; else null." }),
  })
  .meta({ id: "AuditMember", description: "A member of the account's organization, or an invitation to become one." });

export type AuditMemberObject = z.input<typeof AuditMember>;
