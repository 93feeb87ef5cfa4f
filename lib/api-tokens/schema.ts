import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { DateTime } from "@/lib/schemas";

export const ApiTokenCreateInput = z
  .strictObject({
    name: z.string().trim().min(1, "Name the token.").max(100),
    kind: z.enum(["secret", "publishable"]),
  })
  .meta({ id: "ApiTokenCreateInput" });

export const ApiToken = z
  .object({
    id: z.string().meta({ description: "Public, non-secret id (`key_…`); the actor_id of its events." }),
    object: z.literal("api_token"),
    name: z.string(),
    kind: z.enum(["secret", "publishable"]),
    display: z.string().meta({ description: "Prefix and last four characters, e.g. `st_prod_…a1b2`." }),
    status: z.enum(["active", "revoked"]),
    created: DateTime,
    last_used_at: DateTime.nullable(),
    revoked_at: DateTime.nullable(),
  })
  .meta({ id: "ApiToken" });

export const ApiTokenWithSecret = ApiToken.extend({
  token: z.string().meta({ description: "The full token, shown only in this response." }),
}).meta({ id: "ApiTokenWithSecret" });

export const ApiTokenList = listEnvelopeSchema(ApiToken, "ApiTokenList");
export const ApiTokenListQuery = PaginationQuery;
