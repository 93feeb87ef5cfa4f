import type { DomainManifest } from "@/lib/manifest";

/**
 * Key hygiene's audit events (docs/api.md, "Restricted keys"): in a namespace of their own
 * (`api_token.created` and `api_token.revoked` stay in lib/events/catalogue.ts).
 */
export const manifest = {
  events: [
    {
      group: "API key",
      aggregateType: "api_key",
      schema: "ApiToken",
      idKind: "apiToken",
      weight: 0.01,
      types: {
        "api_key.rolled":
          "An API token was rolled: a new secret (its `display` changed), the previous one working until `previous_secret_expires_at` (null: it stopped at once). The token's id, kind and permissions stay. `metadata` has the actor's `client_address` and `user_agent`.",
      },
    },
  ],
} satisfies DomainManifest;
