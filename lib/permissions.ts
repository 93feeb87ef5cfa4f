/**
 * What a restricted API key (`rk_…`, docs/api.md "Restricted keys") may do: a level per named
 * resource. Every operation a token can call declares the one permission it needs
 * (`Operation.permission`), and the request pipeline (lib/api/handler.ts) refuses a restricted key
 * whose permissions do not name it with a 403 whose body has `required_permission`.
 */
export const RESOURCES = [
  "customers",
  "subscriptions",
  "invoices",
  "credit_notes",
  "prices_products",
  "usage",
  "meters",
  "payments_refunds",
  "checkout",
  "portal_sessions",
  "webhook_endpoints",
  "events",
  "logs",
  "tokens",
  "settings",
] as const;

export type Resource = (typeof RESOURCES)[number];

/** What an operation needs: `read` (it changes nothing) or `write` (it changes something). */
export type PermissionLevel = "read" | "write";
/** What a key grants on a resource: `write` includes `read`; `none` (or leaving it out) grants nothing. */
export const GRANT_LEVELS = ["none", "read", "write"] as const;
export type GrantLevel = (typeof GRANT_LEVELS)[number];

/** The permission an operation needs, e.g. `{ resource: "invoices", level: "write" }`. */
export type Permission = { resource: Resource; level: PermissionLevel };

/** A restricted key's grants; a resource left out is `none`. */
export type Permissions = Partial<Record<Resource, GrantLevel>>;

const RANK: Record<GrantLevel, number> = { none: 0, read: 1, write: 2 };

/** `invoices:write`: how the OpenAPI document, the 403 body and the docs name a permission. */
export function permissionName(permission: Permission): string {
  return `${permission.resource}:${permission.level}`;
}

/** Whether a key with `granted` may do what `required` names. */
export function grants(granted: Permissions, required: Permission): boolean {
  return RANK[granted[required.resource] ?? "none"] >= RANK[required.level];
}

/** The shorthand operations declare with: `permission: needs("invoices", "write")`. */
export function needs(resource: Resource, level: PermissionLevel): Permission {
  return { resource, level };
}
