import { apiRoot } from "./api-client";

/** A URL of next-auth's routes (sign-in, session, CSRF): the framework's, not operations of the API document. */
export const authUrl = (origin: string, path: string): string => `${apiRoot(origin)}/auth${path}`;

/** A dashboard session cookie for an existing user, through next-auth's credentials flow over HTTP. */
export async function signInWithPassword(base: string, email: string, password: string): Promise<string> {
  const csrf = await fetch(authUrl(base, "/csrf"));
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const csrfCookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const callback = await fetch(authUrl(base, "/callback/credentials"), {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: csrfCookie },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  const session = callback.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .find((c) => c.startsWith("next-auth.session-token="));
  if (!session) throw new Error(`sign-in failed: ${callback.status}`);
  return session;
}
