import { readSignInAnswer, STALE_FORM, type SignInAnswer } from "@/lib/auth/sign-in-answer";

export type PasswordSignIn = { ok: true } | { ok: false; message: string };

/**
 * Email-and-password sign-in against next-auth's credentials endpoint, answered plainly. The CSRF
 * token is fetched right before the POST, so it matches the cookie the browser holds then; should
 * the cookie still change in between (a concurrent next-auth call setting a fresh one, as on a
 * server's first requests), next-auth answers `csrf=true` and the sign-in is tried once more with a
 * fresh token instead of being taken for a success.
 */
export async function signInWithPassword(email: string, password: string): Promise<PasswordSignIn> {
  let answer = await attempt(email, password);
  if (answer.kind === "stale-csrf") answer = await attempt(email, password);
  if (answer.kind === "signed-in") return { ok: true };
  return { ok: false, message: answer.kind === "refused" ? answer.message : STALE_FORM };
}

async function attempt(email: string, password: string): Promise<SignInAnswer> {
  try {
    const csrf = await fetch("/api/auth/csrf", { cache: "no-store", credentials: "same-origin" });
    const { csrfToken } = (csrf.ok ? await csrf.json().catch(() => ({})) : {}) as { csrfToken?: unknown };
    if (typeof csrfToken !== "string") {
      return { kind: "refused", message: `Sign-in is unavailable (the server answered HTTP ${csrf.status}). Try again.` };
    }
    const response = await fetch("/api/auth/callback/credentials", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      // The destination is chosen by the form (safeRedirectPath), not by next-auth's answer.
      body: new URLSearchParams({ email, password, csrfToken, callbackUrl: "/", json: "true" }),
    });
    const body = (await response.json().catch(() => null)) as { url?: unknown } | null;
    return readSignInAnswer({ ok: response.ok, status: response.status, url: typeof body?.url === "string" ? body.url : null });
  } catch {
    return { kind: "refused", message: "The server could not be reached. Check your connection and try again." };
  }
}
