import type { ServiceContext } from "@/lib/context";

/**
 * The `metadata` of an audit event (api_token.*, webhook_endpoint.*): where the actor's request came
 * from. The actor itself is the event's `actor_type` / `actor_id` (the user or the token).
 */
export function auditMetadata(ctx: ServiceContext): { client_address: string | null; user_agent: string | null } {
  return { client_address: ctx.source?.clientAddress ?? null, user_agent: ctx.source?.userAgent ?? null };
}
