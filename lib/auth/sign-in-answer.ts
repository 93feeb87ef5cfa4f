/**
 * What next-auth's answer to a credentials sign-in (`POST /api/auth/callback/credentials` with
 * `json=true`) means. next-auth answers `{ url }` and states failure only through that URL: a
 * refused password is `…/api/auth/error?error=CredentialsSignin` (401), a message thrown by
 * `authorize` (the sign-in throttle) is `…/error?error=<message>`, and a CSRF token that does not
 * match the cookie is a 200 with `…/api/auth/signin?csrf=true`. Only an ok answer whose URL is
 * none of those is a session: anything else is refused, with a reason to show.
 */
export type SignInAnswer =
  | { kind: "signed-in" }
  /** The CSRF cookie changed under the form (another tab, a concurrent next-auth call): retry once. */
  | { kind: "stale-csrf" }
  | { kind: "refused"; message: string };

export const WRONG_CREDENTIALS = "Wrong email or password.";
export const STALE_FORM = "Your sign-in form expired before it was sent. Sign in again.";

/** next-auth's own error codes (single words), as a person would say them. */
const ERROR_CODES: Record<string, string> = {
  CredentialsSignin: WRONG_CREDENTIALS,
  AccessDenied: "This account may not sign in.",
  Configuration: "Sign-in is misconfigured on the server. Tell the operator.",
};

export function readSignInAnswer(answer: { ok: boolean; status: number; url: string | null }): SignInAnswer {
  const url = answer.url === null ? null : parse(answer.url);
  if (!url) return { kind: "refused", message: `Sign-in failed (the server answered HTTP ${answer.status}). Try again.` };
  if (url.searchParams.get("csrf") === "true") return { kind: "stale-csrf" };
  const error = url.searchParams.get("error");
  if (error) {
    // A sentence is a message thrown by `authorize` (e.g. "Too many attempts; try again in 7 seconds.").
    const message = ERROR_CODES[error] ?? (/\s/.test(error) ? error : `Sign-in failed (${error}). Try again.`);
    return { kind: "refused", message };
  }
  if (!answer.ok) return { kind: "refused", message: `Sign-in failed (the server answered HTTP ${answer.status}). Try again.` };
  if (isAuthPage(url.pathname)) return { kind: "refused", message: "Sign-in did not complete. Try again." };
  return { kind: "signed-in" };
}

/** Where next-auth sends a sign-in that did not happen: its sign-in and error pages, or ours. */
function isAuthPage(pathname: string): boolean {
  return /\/(signin|error)(\/|$)/.test(pathname);
}

function parse(value: string): URL | null {
  try {
    // A relative answer is read against a placeholder origin: only its path and query matter here.
    return new URL(value, "http://answer.invalid");
  } catch {
    return null;
  }
}
