import { Server, type IncomingMessage, type ServerResponse } from "node:http";
import { CONTENT_ENCODING_HEADER, release, takeReleasable } from "@/lib/api/export-body";
import { bodyLimit } from "@/lib/api/limits";
import { problemBody } from "@/lib/api/problem";
import type { Decision } from "@/lib/api/rate-limit";
import { ServiceError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { log } from "@/lib/log";

/**
 * What must happen before Next.js sees a request, installed on Node's HTTP server from
 * instrumentation.ts:
 * - Forwarded headers: without TRUST_PROXY, X-Forwarded-For is the socket's own address and a
 *   client's X-Forwarded-Host/-Proto are dropped (Next.js fills them from the connection), so
 *   neither the rate limits' client address nor the same-origin check believe a client's claims.
 * - An /api path or query that does not decode (malformed percent-encoding) is answered here with
 *   a problem body: Next.js would answer a plain-text 500 of its own.
 * - A cross-site server action is refused with 403 (Next.js answers 500 and prints text).
 * - Bodies: every request's body is read here, up to its route's cap (lib/api/limits.ts), before
 *   Next.js sees the request; one over the cap is answered 413 and no more of it is read. Next.js
 *   and next-auth read whole bodies into memory (next-auth's sign-in, before any authentication).
 * - Capability pages (a secret token or id in the path) count per client address: past the limit
 *   they are answered 429 here with Retry-After and a short page (limitedPage).
 */
export function installHttpGuard(options: { trustProxy: boolean }): void {
  const marked = Server.prototype as Server & { [INSTALLED]?: boolean };
  if (marked[INSTALLED]) return;
  marked[INSTALLED] = true;
  const emit = Server.prototype.emit;
  Server.prototype.emit = function guardedEmit(this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event !== "request") return Reflect.apply(emit, this, [event, ...args]) as boolean;
    const [request, response] = args as [IncomingMessage, ServerResponse];
    if (!options.trustProxy) {
      request.headers["x-forwarded-for"] = request.socket.remoteAddress ?? "unknown";
      delete request.headers["x-forwarded-host"];
      delete request.headers["x-forwarded-proto"];
      delete request.headers["x-forwarded-port"];
    }
    if (answeredMalformed(request, response)) return true;
    passContentEncoding(response);
    const path = splitOnce(request.url ?? "/", "?")[0];
    // Only an export's answer has chunks to release (every export operation's path ends so).
    if (path.endsWith("/export")) releaseWrittenChunks(response);
    if (refusedCrossSiteAction(request, response)) return true;
    const toNext = () => Reflect.apply(emit, this, [event, ...args]) as boolean;
    if (!isCapabilityPage(path)) return passWithinLimit(request, response, toNext);
    // The body is held from this instant, before the page's count is awaited: the HTTP parser
    // pushes a body that came in the headers' packet right after this event returns, and a hold
    // set up after an await would wait for an end already pushed (the request never reached
    // Next.js: a checkout's Pay hung on a fresh or busy server).
    const counted = limitedPage(request, response);
    return passWithinLimit(request, response, () => {
      void counted.then(
        (refused) => {
          if (!refused) toNext();
        },
        // Answering the 429 failed: served, unless part of that answer went out.
        (error: unknown) => {
          log().error({ err: error }, "capability page limit could not answer; request served");
          if (!response.headersSent) toNext();
        },
      );
      return true;
    });
  } as Server["emit"];
}

const INSTALLED = Symbol.for("billing-service.http-guard");

/**
 * An export's gzip body (lib/api/export-body.ts): Next.js drops a route handler's
 * Content-Encoding, so the handler names it in CONTENT_ENCODING_HEADER, sent here as
 * Content-Encoding (before the compression of `next start` looks, which then leaves it alone).
 */
function passContentEncoding(response: ServerResponse): void {
  const { setHeader, appendHeader } = response;
  const encoded = (name: string) => name.toLowerCase() === CONTENT_ENCODING_HEADER;
  response.setHeader = function (name, value) {
    return Reflect.apply(setHeader, this, encoded(name) ? ["Content-Encoding", value] : [name, value]) as ServerResponse;
  };
  response.appendHeader = function (name, value) {
    return encoded(name)
      ? (Reflect.apply(setHeader, this, ["Content-Encoding", value]) as ServerResponse)
      : (Reflect.apply(appendHeader, this, [name, value]) as ServerResponse);
  };
}

/**
 * An export's chunks (releasableCopy, lib/api/export-body.ts) are released once the socket has
 * written them: the write's callback comes after the kernel took the bytes.
 */
function releaseWrittenChunks(response: ServerResponse): void {
  const { write } = response;
  response.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    if (!takeReleasable(chunk)) return Reflect.apply(write, this, [chunk, ...rest]) as boolean;
    const callback = rest.findLast((arg) => typeof arg === "function") as ((error?: Error | null) => void) | undefined;
    const encoding = rest.find((arg) => typeof arg === "string");
    return Reflect.apply(write, this, [
      chunk,
      encoding,
      (error?: Error | null) => {
        release(chunk);
        callback?.(error);
      },
    ]) as boolean;
  } as ServerResponse["write"];
}

function isApiPath(path: string): boolean {
  return path === "/api" || path.startsWith("/api/");
}

/**
 * Paths whose token or id is the only credential: a portal link (and its refusal page), a hosted
 * invoice (and its PDF, also an /api operation), a checkout page. Guessing or replaying them is
 * held to RATE_LIMIT_PAGES_PER_MINUTE per address, as /api's requests without credentials are.
 */
const CAPABILITY_PAGES = ["/portal/start/", "/invoice/", "/checkout/", "/api/hosted-invoices/"];

function isCapabilityPage(path: string): boolean {
  return CAPABILITY_PAGES.some((prefix) => path.startsWith(prefix));
}

/** Counts a capability page's request; past the limit answers 429 (true). The count failing lets it through. */
async function limitedPage(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
  let decision: Decision;
  let setRateLimitHeaders: typeof import("@/lib/api/rate-limit").setRateLimitHeaders;
  try {
    // Imported on the first capability page: the guard's other checks need neither the limiter nor
    // the database. Inside the try: a failed import serves the page, as a failed count does.
    const limiter = await import("@/lib/api/rate-limit");
    setRateLimitHeaders = limiter.setRateLimitHeaders;
    decision = await limiter.limitCapabilityPage(limiter.addressOf(request.headers));
  } catch (error) {
    // The limiter counts locally when the database is away; anything else must not take pages down.
    log().error({ err: error }, "capability page rate limit failed; request served");
    return false;
  }
  if (decision.allowed) return false;
  // The body went over its cap meanwhile and was answered 413.
  if (response.headersSent) return true;
  const path = splitOnce(request.url ?? "/", "?")[0];
  const headers = new Headers();
  setRateLimitHeaders(headers, decision);
  const seconds = headers.get("Retry-After");
  if (isApiPath(path)) {
    for (const [name, value] of headers) response.setHeader(name, value);
    answer(request, response, new ServiceError("rate_limited", `Too many requests from this address: the limit is ${decision.policy.limit} per minute. Retry after ${seconds} s.`, { error_code: "rate_limited" }), path);
    return true;
  }
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Too many requests</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5">
<h1>Too many requests</h1>
<p>This page was opened too many times from your network. Please wait ${seconds} seconds, then reload the page.</p>
</body></html>
`;
  response.writeHead(429, {
    ...Object.fromEntries(headers),
    "Content-Type": "text/html; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "X-Request-Id": newId("request"),
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
  });
  response.end(body);
  return true;
}

/** How long a refused connection stays open, unread, for the client to read the answer. */
const LINGER_MS = 5_000;

/**
 * After answering without reading the body, read nothing more and close gently. Node would drain
 * the body (`_dump`) and then destroy the socket at once: a reset that can discard the answer
 * before a client still sending has read it. Instead the socket stops reading, sends its FIN
 * after the answer, and is destroyed after LINGER_MS.
 */
function closeUnread(request: IncomingMessage): void {
  const socket = request.socket;
  request.push = () => false;
  request._read = () => {};
  socket.destroySoon = () => {
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}

/** Answers here, before Next.js: a problem body under /api, a plain page elsewhere; the connection closes. */
function answer(request: IncomingMessage, response: ServerResponse, error: ServiceError, instance: string): void {
  // A capability page's 429 went first (its count is read while the body arrives): read no more.
  if (response.headersSent) return closeUnread(request);
  const requestId = newId("request");
  const path = splitOnce(request.url ?? "/", "?")[0];
  const problem = problemBody(error, requestId, instance);
  const api = isApiPath(path);
  const body = api ? JSON.stringify(problem) : `${problem.status} ${problem.title}: ${problem.detail}\n`;
  response.writeHead(problem.status, {
    "Content-Type": api ? "application/problem+json" : "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "X-Request-Id": requestId,
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    ...(api ? { "Access-Control-Allow-Origin": "*" } : {}),
    // The rest of the request is never read: the connection cannot carry another one.
    Connection: "close",
  });
  closeUnread(request);
  response.end(body);
}

function answeredMalformed(request: IncomingMessage, response: ServerResponse): boolean {
  const url = request.url ?? "/";
  const [path, query] = splitOnce(url, "?");
  if (!isApiPath(path)) return false;
  const badPath = !decodes(path, (part) => decodeURIComponent(part));
  // Query values decode leniently (URLSearchParams), but a stray % is still a client error.
  const badQuery = !decodes(query, (part) => decodeURIComponent(part.replace(/\+/g, " ")));
  if (!badPath && !badQuery) return false;
  const detail = `The request ${badPath ? "path" : "query string"} has malformed percent-encoding.`;
  answer(request, response, new ServiceError("bad_request", detail), badPath ? "/api" : path);
  return true;
}

/**
 * Next.js refuses a server action whose Origin is not this host (CSRF), but with a 500 and text on
 * stderr; the same check here answers 403. A possible action is what Next.js treats as one: a POST
 * outside /api with `Next-Action`, or a form (urlencoded or multipart) posted to a page.
 */
function refusedCrossSiteAction(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.method !== "POST") return false;
  const path = splitOnce(request.url ?? "/", "?")[0];
  if (isApiPath(path)) return false;
  const contentType = request.headers["content-type"] ?? "";
  const possibleAction =
    request.headers["next-action"] !== undefined || contentType === "application/x-www-form-urlencoded" || contentType.startsWith("multipart/form-data");
  const origin = request.headers.origin;
  // Without Origin (not a browser's request), Next.js lets the action through, as before.
  if (!possibleAction || origin === undefined) return false;
  const forwardedHost = request.headers["x-forwarded-host"];
  const hosts = [request.headers.host, (Array.isArray(forwardedHost) ? forwardedHost[0] : forwardedHost)?.split(",")[0]?.trim()];
  const originHost = hostOf(origin);
  if (originHost !== undefined && hosts.includes(originHost)) return false;
  log().warn({ method: request.method, path, origin: origin.slice(0, 200) }, "cross-site server action refused");
  answer(request, response, new ServiceError("forbidden", "Cross-site request refused: forms and actions must come from this site's pages."), path);
  return true;
}

function hostOf(origin: string): string | undefined {
  try {
    return origin === "null" ? undefined : new URL(origin).host;
  } catch {
    return undefined;
  }
}

/**
 * Hands the request to Next.js once its whole body has arrived within the route's cap, or answers
 * 413 as soon as the declared length or the bytes received pass it. The HTTP parser feeds the
 * body through `request.push`; held here, the chunks go to Next.js unchanged, in order, followed
 * by the end. Refusing, push answers false, so Node stops reading the socket.
 */
function passWithinLimit(request: IncomingMessage, response: ServerResponse, pass: () => boolean): boolean {
  const declared = request.headers["content-length"];
  const chunked = request.headers["transfer-encoding"] !== undefined;
  if (!chunked && (declared === undefined || Number(declared) === 0)) return pass();
  const path = splitOnce(request.url ?? "/", "?")[0];
  const limit = bodyLimit(path);
  const tooLarge = () => answer(request, response, new ServiceError("payload_too_large", `The request body exceeds ${limit} bytes.`), path);
  if (declared !== undefined && Number(declared) > limit) {
    tooLarge();
    return true;
  }
  const push = request.push;
  const chunks: Buffer[] = [];
  let received = 0;
  request.push = (chunk: Buffer | null, encoding?: BufferEncoding): boolean => {
    if (chunk === null) {
      // Complete: back to the stream's own push, which gets everything in order, then Next.js.
      delete (request as { push?: unknown }).push;
      for (const held of chunks) push.call(request, held, encoding);
      push.call(request, null);
      pass();
      return false;
    }
    received += chunk.length;
    if (received > limit) {
      chunks.length = 0;
      tooLarge();
      return false;
    }
    chunks.push(chunk);
    return true;
  };
  return true;
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, ""] : [text.slice(0, at), text.slice(at + 1)];
}

function decodes(text: string, decode: (part: string) => string): boolean {
  try {
    for (const part of text.split(/[/&=]/)) decode(part);
    return true;
  } catch {
    return false;
  }
}
