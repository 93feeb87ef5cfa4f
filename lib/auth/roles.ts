import { ServiceError } from "@/lib/errors";

/**
 * Dashboard roles (docs/teams.md). Each includes the ones below it: a viewer reads, a developer
 * also manages the integration (API tokens, webhook endpoints, event resends, the test clock), an
 * admin also changes billing objects and manages members, an owner also makes and unmakes owners.
 * API tokens are not users and have no role. Imported by the dashboard's components too: no db here.
 */
export const ROLES = ["owner", "admin", "developer", "viewer"] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, developer: 1, admin: 2, owner: 3 };

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/** Whether `role` may do what needs `needed`. */
export function roleAllows(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

/**
 * The one refusal of a dashboard user's role, for the /api operations (lib/api/handler.ts) and the
 * server actions (lib/teams/action.ts) alike: a 403 naming the role held and the role needed.
 */
export function assertRoleAllows(role: Role, needed: Role): void {
  if (roleAllows(role, needed)) return;
  throw new ServiceError(
    "forbidden",
    `Your role (${role}) cannot do this: it needs ${needed}${needed === "owner" ? "" : " or above"}. Ask an owner or admin of your organization.`,
    { required_role: needed, role },
  );
}

/**
 * The least role a dashboard session needs for an operation: what the operation declares, else a
 * viewer for reads and an admin for changes (billing objects).
 */
export function requiredRole(operation: { method: string; role?: Role }): Role {
  return operation.role ?? (operation.method === "GET" ? "viewer" : "admin");
}

export const ROLE_LABELS: Record<Role, string> = {
  owner: "Owner",
  admin: "Admin",
  developer: "Developer",
  viewer: "Viewer",
};

export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  owner: "Everything, including making and removing owners.",
  admin: "Everything but owners: billing objects, integration, members.",
  developer: "Revokes API tokens; webhook endpoints, event resends, the test clock; reads billing.",
  viewer: "Reads everything; changes nothing.",
};
