import type { Operation } from "@/lib/api/operation";
import { API_OPERATIONS } from "./operations-index";
import type { ServiceContext, TokenKind } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { requiredRole, roleAllows, type Role } from "@/lib/auth/roles";
import { grants, type Permissions } from "@/lib/permissions";

/**
 * A token can do no more than the member who makes it (docs/teams.md, "Who can mint what"). A
 * token has no role: a secret token may call every `secret` and `publishable` operation, a
 * publishable one every `publishable` operation (`public` ones need no token at all). Minting a
 * kind therefore needs the role a session needs for the most demanding of those operations.
 */
function callableBy(kind: TokenKind, permissions: Permissions | null): Operation[] {
  if (kind === "restricted") {
    // A restricted key: the secret and publishable operations its permissions name.
    return API_OPERATIONS.filter(
      (operation) =>
        (operation.access === "publishable" || operation.access === "secret") &&
        operation.permission !== undefined &&
        grants(permissions ?? {}, operation.permission),
    );
  }
  return API_OPERATIONS.filter((operation) => operation.access === "publishable" || (kind === "secret" && operation.access === "secret"));
}

/** The least role that may mint a token of this kind (and permissions), and an operation that needs it (for the refusal). */
export function roleToMint(kind: TokenKind, permissions: Permissions | null = null): { role: Role; example: string | null } {
  let role: Role = "viewer";
  let example: string | null = null;
  for (const operation of callableBy(kind, permissions)) {
    const needed = requiredRole(operation);
    if (!roleAllows(role, needed)) {
      role = needed;
      example = operation.operationId;
    }
  }
  return { role, example };
}

/**
 * Refuses a session whose role could not itself call every operation the token could (a 403
 * problem naming the role needed); tokens (which cannot manage tokens anyway) and background work
 * carry no role and are not asked.
 */
export function assertMayMint(ctx: ServiceContext, kind: TokenKind, permissions: Permissions | null = null): void {
  if (ctx.role === undefined) return;
  const { role: needed, example } = roleToMint(kind, permissions);
  if (roleAllows(ctx.role, needed)) return;
  const reach =
    kind === "restricted"
      ? "This restricted key can call operations"
      : `A ${kind} token can call every ${kind === "secret" ? "secret and publishable" : "publishable"} operation`;
  throw new ServiceError(
    "forbidden",
    `${reach}` +
      `${example ? ` (${example}, for one)` : ""}, which your role (${ctx.role}) cannot: a token can do no more than the member who makes it. ` +
      `Ask a member with the ${needed} role${needed === "owner" ? "" : " or above"} to create it.`,
    { required_role: needed, role: ctx.role, error_code: "token_exceeds_role" },
  );
}
