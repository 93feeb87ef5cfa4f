import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { signUp } from "@/lib/auth/users";
import { organizationAccounts } from "@/lib/auth/users";
import type { Json } from "./api";
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
  async function request(method: string, path: string, options: { body?: unknown; origin?: string | null } = {}) {
    const headers: Record<string, string> = { Cookie: session };
    const origin = options.origin === undefined ? base : options.origin;
    if (origin) headers.Origin = origin;
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(`${base}/api${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json };
  }
  return { user, live: live!, sandbox: sandbox!, request, cookie: session };
}
