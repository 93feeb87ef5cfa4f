import { z } from "zod";

/**
 * A dashboard user as the audit events carry it (`user.*`): who, never a password or its hash.
 */
export const AuditUser = z
  .object({
    id: z.string().meta({ description: "Prefix `user_`; the `actor_id` of the user's changes." }),
    object: z.literal("user"),
    email: z.string(),
    name: z.string().nullable(),
    role: z.enum(["owner", "admin", "developer", "viewer"]),
  })
  .meta({ id: "AuditUser", description: "A dashboard user of the account's organization." });
