import { Server, type IncomingMessage, type ServerResponse } from "node:http";
import { newId } from "@/lib/ids";

/**
 * What must happen before Next.js sees a request, installed on Node's HTTP server from
 * instrumentation.ts:
 * - Forwarded headers: without TRUST_PROXY, X-Forwarded-For is the socket's own address and a
 *   client's X-Forwarded-Host/-Proto are dropped (Next.js fills them from the connection), so
 *   neither the rate limits' client address nor the same-origin check believe a client's claims.
 * - An /api path or query that does not decode (malformed percent-encoding) is answered here with
 *   a problem body: Next.js would answer a plain-text 500 of its own.
 */
export function installHttpGuard(options: { trustProxy: boolean }): void {
  const marked = Server.prototype as Server & { [INSTALLED]?: boolean };
  if (marked[INSTALLED]) return;
  marked[INSTALLED] = true;
  const emit = Server.prototype.emit;
  Server.prototype.emit = function guardedEmit(this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request") {
      const [request, response] = args as [IncomingMessage, ServerResponse];
      if (!options.trustProxy) {
        request.headers["x-forwarded-for"] = request.socket.remoteAddress ?? "unknown";
        delete request.headers["x-forwarded-host"];
        delete request.headers["x-forwarded-proto"];
        delete request.headers["x-forwarded-port"];
      }
      if (answeredMalformed(request, response)) return true;
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as Server["emit"];
}

const INSTALLED = Symbol.for("billing-service.http-guard");

function answeredMalformed(request: IncomingMessage, response: ServerResponse): boolean {
  const url = request.url ?? "/";
  if (!url.startsWith("/api/") && url !== "/api") return false;
  const [path = "", query = ""] = splitOnce(url, "?");
  const badPath = !decodes(path, (part) => decodeURIComponent(part));
  // Query values decode leniently (URLSearchParams), but a stray % is still a client error.
  const badQuery = !decodes(query, (part) => decodeURIComponent(part.replace(/\+/g, " ")));
  if (!badPath && !badQuery) return false;
  const requestId = newId("request");
  const body = JSON.stringify({
    type: "about:blank",
    title: "Bad Request",
    status: 400,
    detail: `The request ${badPath ? "path" : "query string"} has malformed percent-encoding.`,
    instance: badPath ? "/api" : path,
    request_id: requestId,
  });
  request.resume();
  response.writeHead(400, {
    "Content-Type": "application/problem+json",
    "Content-Length": Buffer.byteLength(body),
    "X-Request-Id": requestId,
    "Cache-Control": "no-store",
    "Access-Control-Allow-Origin": "*",
  });
  response.end(body);
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
