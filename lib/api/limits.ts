/**
 * What a request may send, once for every route (docs/security.md, "Hostile input"). The HTTP
 * guard (lib/http/guard.ts) enforces the body caps before Next.js reads anything; the API's JSON
 * reader (lib/api/validation.ts) enforces them again, and the nesting bound, as it parses.
 */

/** Every request body, chunked or not: larger ones are refused with 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Inngest's calls carry a run's event and step results; Inngest caps a step's output at 4 MB and
 * hands larger run state over through its API, so 4 MiB is what its route needs.
 */
export const MAX_INNGEST_BODY_BYTES = 4 * 1024 * 1024;

/** JSON bodies nested deeper than this (arrays and objects) are refused with 400. */
export const MAX_JSON_DEPTH = 64;

/** The body cap of a path (no query string). */
export function bodyLimit(pathname: string): number {
  return pathname === "/api/inngest" || pathname.startsWith("/api/inngest/") ? MAX_INNGEST_BODY_BYTES : MAX_BODY_BYTES;
}

/**
 * Whether JSON text nests arrays and objects deeper than `max`: one pass over the characters,
 * no recursion and no parse, so it can run before JSON.parse and anything that walks the result.
 * Brackets inside strings are text; the text need not be valid JSON (JSON.parse judges that).
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++; // backslash: the next character is escaped
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > max) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}
