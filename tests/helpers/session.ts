import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { signUp } from "@/lib/teams/users";
import { organizationAccounts } from "@/lib/auth/users";
import { api, type ApiPath, type ApiResponse, apiRoot } from "./api";
import { signInWithPassword } from "./sign-in";

/** A dashboard user of a new organization, signed in through next-auth's credentials flow over HTTP. */
export async function signedInUser() {
  const base = inject("apiBaseUrl");
  const email = `user-${randomBytes(5).toString("hex")}@example.com`;
  const password = "correct horse battery staple";
  const user = await signUp({ name: "Test User", company: "Test Co", email, password });
  const [live, sandbox] = await organizationAccounts(user.organizationId);

  const session = await signInWithPassword(base, email, password);

  /** A request as the dashboard makes it: the session cookie, and this site's Origin. */
  function request<M extends "get" | "post" | "delete">(
    method: Uppercase<M>,
    path: ApiPath<M>,
    options: { body?: unknown; origin?: string | null } = {},
  ): Promise<ApiResponse> {
    const origin = options.origin === undefined ? base : options.origin;
    const headers: Record<string, string> = { Cookie: session, ...(origin ? { Origin: origin } : {}) };
    return api(undefined, apiRoot(base)).request(method, path, { headers, ...(options.body === undefined ? {} : { body: options.body }) });
  }
  return { user, live: live!, sandbox: sandbox!, request, cookie: session };
}
