/**
 * Where to send the browser after sign-in or sign-up: a path on this site, never another host.
 * `callbackUrl` comes from the query string, so anyone can write it; the dangerous spellings are
 * those a browser resolves to another origin: `//host` and `/\host` (protocol-relative), a scheme
 * (`https:`, `javascript:`), and the same hidden by percent-encoding (`%2F%2Fhost`, `/%5Chost`) or
 * by tabs and newlines, which browsers strip from URLs (`/\t/host` is `//host`). Anything doubtful
 * falls back to `/`. Used by the sign-in and sign-up forms and by next-auth's `redirect` callback.
 */
export const SAFE_FALLBACK = "/";

/** ASCII control characters: browsers strip tabs and newlines from URLs, so they can hide a slash. */
const CONTROL = /[\u0000-\u001f\u007f]/;

/** At most this many rounds of percent-decoding are inspected; deeper nesting is refused outright. */
const DECODE_ROUNDS = 3;

/**
 * A same-origin path (`/accounts/acc_…?x=1#y`) for `target`, or `/`. `origin` (e.g.
 * `window.location.origin` or next-auth's base URL) lets an absolute URL on this very origin
 * through, as its path.
 */
export function safeRedirectPath(target: string | null | undefined, origin?: string): string {
  if (!target) return SAFE_FALLBACK;
  let candidate = target;
  if (origin && !candidate.startsWith("/")) {
    const absolute = parseUrl(candidate);
    const home = parseUrl(origin);
    if (!absolute || !home || absolute.origin !== home.origin || absolute.username || absolute.password) return SAFE_FALLBACK;
    candidate = `${absolute.pathname}${absolute.search}${absolute.hash}`;
  }
  return isSafePath(candidate) ? candidate : SAFE_FALLBACK;
}

function isSafePath(path: string): boolean {
  let decoded = path;
  for (let round = 0; ; round += 1) {
    if (!isPlainPath(decoded)) return false;
    const next = decodeOnce(decoded);
    if (next === null) return false;
    if (next === decoded) break;
    if (round === DECODE_ROUNDS) return false;
    decoded = next;
  }
  // What the browser would make of it: still this origin, whatever normalization it applies.
  const base = "http://origin.invalid";
  const resolved = parseUrl(path, base);
  return resolved !== null && resolved.origin === base;
}

/** Starts with exactly one slash, and holds no backslash or control character anywhere. */
function isPlainPath(path: string): boolean {
  return path.startsWith("/") && !path.startsWith("//") && !path.includes("\\") && !CONTROL.test(path);
}

function decodeOnce(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

function parseUrl(value: string, base?: string): URL | null {
  try {
    return new URL(value, base);
  } catch {
    return null;
  }
}
