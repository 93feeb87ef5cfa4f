import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { organizationAccounts } from "@/lib/auth/users";
import { signUp } from "@/lib/teams/users";
import { createUser } from "@/lib/teams/create-user";
import type { Role } from "@/lib/auth/roles";
import { api, type ApiResponse, apiRoot } from "./api";
import { callAction } from "./server-action";
import { signInWithPassword } from "./sign-in";

export const PASSWORD = "correct horse battery staple";
export const uniqueEmail = (label: string) => `${label}-${randomBytes(5).toString("hex")}@example.com`;

/** A signed-in member: their session on the /api (as the dashboard calls it) and the Settings actions. */
export async function memberSession(base: string, email: string, accountId: string) {
  const cookie = await signInWithPassword(base, email, PASSWORD);
  const client = api(undefined, apiRoot(base));
  const headers = { Cookie: cookie, Origin: base };
  return {
    email,
    cookie,
    request: (method: string, path: string, body?: unknown): Promise<ApiResponse> =>
      client.offContract.request(method, path, { headers, ...(body === undefined ? {} : { body }) }),
    action: async (name: string, input: unknown) => (await callAction(base, `/accounts/${accountId}/settings`, name, input, cookie)).result as TeamActionResult,
  };
}

export type TeamActionResult = {
  ok: boolean;
  message?: string;
  path?: string;
  invitationId?: string;
  problem?: { status: number; request_id: string; detail: string; required_role?: string };
};
export type MemberSession = Awaited<ReturnType<typeof memberSession>>;

/** An organization with one signed-in member per role (the owner signed up; the others by `createUser`, as `npm run user:create` does). */
export async function newTeam() {
  const base = inject("apiBaseUrl");
  const ownerEmail = uniqueEmail("owner");
  const owner = await signUp({ name: "Owner", company: "Team Co", email: ownerEmail, password: PASSWORD });
  const [live, sandbox] = await organizationAccounts(owner.organizationId);
  const ids: Record<Role, string> = { owner: owner.id, admin: "", developer: "", viewer: "" };
  const emails: Record<Role, string> = { owner: ownerEmail, admin: "", developer: "", viewer: "" };
  for (const role of ["admin", "developer", "viewer"] as const) {
    emails[role] = uniqueEmail(role);
    ids[role] = (await createUser({ email: emails[role], password: PASSWORD, organization: owner.organizationId, role })).id;
  }
  const sessions = {} as Record<Role, MemberSession>;
  for (const role of ["owner", "admin", "developer", "viewer"] as const) sessions[role] = await memberSession(base, emails[role], live!.id);
  return { base, organizationId: owner.organizationId, live: live!, sandbox: sandbox!, ids, emails, sessions };
}
