/**
 * A token's kind: a secret token, a publishable one (what a browser may hold), or a restricted key
 * (`rk_…`: a secret token limited to the permissions it names, docs/api.md "Restricted keys").
 */
export type TokenKind = "secret" | "publishable" | "restricted";

/**
 * Who caused a change (the event's `actor_type` / `actor_id`). A token also says its kind, which
 * decides what a browser (publishable) may do, so no service has to look the token up again.
 */
export type Actor =
  | { type: "api_key"; id: string; tokenKind: TokenKind }
  | { type: "user" | "system"; id: string | null }
  /** A customer: on the hosted pages, or in a portal session (its `bps_` id goes on the events' `metadata.portal_session`). */
  | { type: "customer"; id: string | null; portalSession?: string };

/**
 * What every domain verb receives besides its input: the account it acts on, who acts, and the
 * correlation id to stamp on the events it emits. Built by the HTTP layer from the request.
 */
export type ServiceContext = {
  accountId: string;
  livemode: boolean;
  actor: Actor;
  correlationId: string | null;
  /**
   * The `req_…` id of the API request the verb runs for (stamped on its events as `request_id`);
   * absent for background work.
   */
  requestId?: string;
  /**
   * A dashboard session's role (docs/teams.md), read from the user's row for this request; absent
   * for tokens and background work. What a member may mint is bounded by it (lib/server/token-minting.ts).
   */
  role?: "owner" | "admin" | "developer" | "viewer";
  /** Where the request came from, for the audit events (`metadata.client_address`, `metadata.user_agent`). */
  source?: { clientAddress: string | null; userAgent: string | null };
  /**
   * The account's current time: the real clock, or a sandbox account's test clock (lib/clock).
   * Every domain timestamp and every "is it due yet" decision uses it.
   */
  now: () => Date;
};

/** The argument of every domain verb (openstatus style): `{ ctx, input }`. */
export type Verb<I> = { ctx: ServiceContext; input: I };
