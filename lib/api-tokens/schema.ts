import ipaddr from "ipaddr.js";
import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { GRANT_LEVELS, RESOURCES } from "@/lib/permissions";
import { DateTime } from "@/lib/schemas";

const TokenKind = z.enum(["secret", "publishable", "restricted"]);

/** A restricted key's level per resource (docs/api.md, "Restricted keys"); a resource left out is `none`. */
export const TokenPermissions = z
  .partialRecord(z.enum(RESOURCES), z.enum(GRANT_LEVELS))
  .meta({
    id: "TokenPermissions",
    description:
      "A restricted key's level per resource: `none`, `read` (operations that change nothing) or `write` (every operation on it, reads included). A resource left out is `none`. Each operation names the permission it needs (`x-required-permission`).",
    example: { customers: "read", invoices: "write" },
  });

const Cidr = z
  .string()
  .trim()
  .refine((range) => ipaddr.isValidCIDR(range), "Not a CIDR range, e.g. 203.0.113.0/24 or 2001:db8::/32.");

/** The longest overlap of a roll: 7 days, as for webhook secrets. */
export const MAX_ROLL_OVERLAP_SECONDS = 7 * 24 * 3600;

export const ApiTokenCreateInput = z
  .strictObject({
    name: z.string().trim().min(1, "Name the token.").max(100),
    kind: TokenKind,
    description: z.string().trim().max(500).optional(),
    permissions: TokenPermissions.optional().meta({ description: "Required for (and only for) `kind: restricted`." }),
    expires_at: DateTime.optional().meta({ description: "From this instant the token answers 401 (it must be in the future)." }),
    allowed_ips: z
      .array(Cidr)
      .min(1)
      .max(20)
      .optional()
      .meta({ description: "Client address ranges (CIDR) the token may be used from; any other address is refused (403)." }),
  })
  .superRefine((input, issue) => {
    if (input.kind === "restricted" && input.permissions === undefined) {
      issue.addIssue({ code: "custom", path: ["permissions"], message: "A restricted key needs its permissions." });
    }
    if (input.kind !== "restricted" && input.permissions !== undefined) {
      issue.addIssue({ code: "custom", path: ["permissions"], message: "Only restricted keys (kind: restricted) take permissions." });
    }
  })
  .meta({ id: "ApiTokenCreateInput" });

export const ApiTokenRollInput = z
  .strictObject({
    overlap_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_ROLL_OVERLAP_SECONDS)
      .default(86_400)
      .meta({ description: "How long the previous secret keeps working (default one day, at most 7 days); 0 ends it at once." }),
  })
  .meta({ id: "ApiTokenRollInput" });

export const ApiToken = z
  .object({
    id: z.string().meta({ description: "Public, non-secret id (`key_…`); the actor_id of its events and the request log's token." }),
    object: z.literal("api_token"),
    name: z.string(),
    description: z.string().nullable(),
    kind: TokenKind,
    display: z.string().meta({ description: "Prefix and last four characters, e.g. `st_prod_…a1b2`." }),
    status: z.enum(["active", "expired", "revoked"]),
    permissions: TokenPermissions.nullable().meta({ description: "A restricted key's levels; null for secret and publishable tokens." }),
    allowed_ips: z.array(z.string()).nullable(),
    expires_at: DateTime.nullable(),
    previous_secret_expires_at: DateTime.nullable().meta({
      description: "After a roll with overlap: until when the previous secret still works; null when only the current one does.",
    }),
    created: DateTime,
    last_used_at: DateTime.nullable(),
    last_used_ip: z.string().nullable().meta({ description: "The client address of the call that last recorded `last_used_at`." }),
    revoked_at: DateTime.nullable(),
  })
  .meta({ id: "ApiToken" });

export const ApiTokenWithSecret = ApiToken.extend({
  token: z.string().meta({ description: "The full token, shown only in this response." }),
}).meta({ id: "ApiTokenWithSecret" });

export const ApiTokenList = listEnvelopeSchema(ApiToken, "ApiTokenList");
export const ApiTokenListQuery = PaginationQuery;
