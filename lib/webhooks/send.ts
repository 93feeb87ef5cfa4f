import type { ClientRequest } from "node:http";
import { Agent, request } from "node:https";
import { assertPublicLiteral, BlockedAddressError, publicOnlyLookup, publicOrLoopbackLookup } from "./network";

export const RESPONSE_EXCERPT_BYTES = 4096;

export type SendResult = {
  /** HTTP status, or null when no response arrived. */
  status: number | null;
  error: string | null;
  /** Up to 4 KB of the response body. */
  excerpt: string | null;
  durationMs: number;
  /** The destination resolved to a refused (non-public) address. */
  blocked: boolean;
};

// Keep-alive sockets per receiver origin. undici's pools were measured as the alternative and cost
// more CPU per request here (docs/history/performance-log.md, webhook delivery), so node:https stays.
const agents = {
  publicOnly: new Agent({ keepAlive: true, lookup: publicOnlyLookup }),
  publicOrLoopback: new Agent({ keepAlive: true, lookup: publicOrLoopbackLookup }),
  any: new Agent({ keepAlive: true }),
};

function describe(error: NodeJS.ErrnoException): string {
  if (error instanceof BlockedAddressError) return error.message;
  if (error.code === "ECONNREFUSED") return "Connection refused by the endpoint.";
  if (error.code === "ENOTFOUND") return "The endpoint's host name does not resolve.";
  if (error.code === "ECONNRESET") return "The endpoint closed the connection.";
  return error.code ? `${error.message} (${error.code})` : error.message;
}

/** The headers a POST of `body` carries: the delivery's own, and its length (shown on the event page too). */
export function requestHeaders(headers: Record<string, string>, body: Buffer): Record<string, string> {
  return { ...headers, "Content-Length": String(body.length) };
}

/**
 * One HTTPS POST of exactly `body`. Redirects are not followed; the whole exchange has one
 * deadline; the body read stops after 4 KB.
 */
export function sendWebhook(input: {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /** Loopback receivers too (development; implied by allowPrivateNetworks). */
  allowLoopback?: boolean;
}): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(input.url);
  if (!input.allowPrivateNetworks) {
    try {
      assertPublicLiteral(url.hostname, input.allowLoopback ?? false);
    } catch (error) {
      return Promise.resolve({ status: null, error: (error as Error).message, excerpt: null, blocked: true, durationMs: elapsed() });
    }
  }
  return new Promise((resolve) => {
    let settled = false;
    let current: ClientRequest | null = null;
    const finish = (result: Omit<SendResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ ...result, durationMs: elapsed() });
    };
    const deadline = setTimeout(() => {
      current?.destroy();
      finish({ status: null, error: `No response within ${input.timeoutMs} ms.`, excerpt: null, blocked: false });
    }, input.timeoutMs);

    const post = (staleRetries: number) => {
      const req = request(url, {
        method: "POST",
        headers: requestHeaders(input.headers, input.body),
        agent: input.allowPrivateNetworks ? agents.any : input.allowLoopback ? agents.publicOrLoopback : agents.publicOnly,
      });
      current = req;
      let answered = false;
      req.on("error", (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the receiver closed while it sat idle fails at once on reuse: Node's
        // documented remedy is to send again on a new socket (the receiver never saw the request).
        const stale = req.reusedSocket && !answered && (error.code === "ECONNRESET" || error.code === "EPIPE");
        if (stale && staleRetries > 0 && !settled) return post(staleRetries - 1);
        finish({ status: null, error: describe(error), excerpt: null, blocked: error instanceof BlockedAddressError });
      });
      req.on("response", (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          // PostgreSQL text cannot hold NUL: a receiver's NUL bytes must not make the attempt unrecordable.
          const excerpt = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString("utf8").replaceAll("\0", "\uFFFD");
          finish({ status: res.statusCode ?? null, error: null, excerpt, blocked: false });
        };
        res.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_EXCERPT_BYTES) {
            done();
            res.destroy();
          }
        });
        res.on("end", done);
        res.on("error", done);
      });
      req.end(input.body);
    };
    // Every idle socket of the pool may have been closed at once: up to three more tries, each on
    // the next idle socket, or a new one.
    post(3);
  });
}
