import NextAuth from "next-auth";
import type { NextRequest } from "next/server";
import { failWith } from "@/lib/api/handler";
import { ServiceError } from "@/lib/errors";
import { authOptions } from "./auth-options";

type NextAuthContext = { params: Promise<{ nextauth: string[] }> };

// next-auth's callback cookie, plain and under HTTPS.
const CALLBACK_COOKIES = ["next-auth.callback-url", "__Secure-next-auth.callback-url"];

/** next-auth's own rule: a path on this site, or an http(s) URL. */
function isHttpUrl(url: string, base: string): boolean {
  try {
    return /^https?:$/.test(new URL(url, url.startsWith("/") ? base : undefined).protocol);
  } catch {
    return false;
  }
}

/**
 * next-auth's endpoints (sign-in, callbacks, session). A `callbackUrl` that is no http(s) URL
 * (`javascript:…`), in the query or the callback cookie, is a 400 problem here: next-auth itself
 * answers it with a 500 "configuration" error. Bodies are capped before this runs (lib/http/guard.ts).
 */
export async function nextAuthRoute(request: NextRequest, context: NextAuthContext): Promise<Response> {
  const base = request.nextUrl.origin;
  const query = request.nextUrl.searchParams.get("callbackUrl");
  const cookie = CALLBACK_COOKIES.map((name) => request.cookies.get(name)?.value).find((value) => value !== undefined);
  for (const [where, url] of [
    ["query parameter", query],
    ["cookie", cookie],
  ] as const) {
    if (url && !isHttpUrl(url, base)) {
      const error = new ServiceError("bad_request", `callbackUrl (${where}) must be a path on this site or an http(s) URL.`);
      return failWith(() => error)(request, context);
    }
  }
  return NextAuth(request as never, context as never, authOptions()) as Promise<Response>;
}
