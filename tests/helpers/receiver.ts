import { readFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { verifyWebhookSignature } from "@/docs/examples/verify-webhook";
import { freePort } from "./server";
import { testTls } from "./tls";
import type { Json } from "./api";

export type ReceivedRequest = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  body: Json;
  /** Checked with an independent HMAC over the raw bytes and a constant-time compare. */
  signatureValid: boolean;
  receivedAt: number;
  /** What the receiver answered. */
  reply?: Reply;
  /** When the answer was sent (absent while hanging). */
  answeredAt?: number;
  /** When the sender gave up a hanging request (closed it unanswered). */
  abandonedAt?: number;
};

/**
 * What to answer: a status (and body, after `delayMs` if given), or `hang` (never answer), or
 * `reset` (drop the socket).
 */
export type Reply = { status: number; body?: string; delayMs?: number } | "hang" | "reset";
export type Responder = (request: ReceivedRequest, index: number) => Reply;

/**
 * A real HTTPS webhook receiver on loopback with the test run's self-signed certificate. It
 * records every request and answers as scripted.
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private responder: Responder = () => ({ status: 200, body: "ok" });
  private secret: string | null = null;
  private readonly hanging = new Set<() => void>();
  /** Every TCP connection, from accept on: close() ends them all (see there). */
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    const { certPath, keyPath } = testTls();
    const server = createServer({ cert: readFileSync(certPath), key: readFileSync(keyPath) });
    // Idle connections are kept longer than any sender keeps them (undici: 4 s, the app's pool less),
    // so the sender always closes first. With Node's 5 s, a test process stalled for seconds on a
    // loaded machine woke to the idle timer and the next request at once, closed the socket with
    // the request unread, and the sender got ECONNRESET (CI, `npm run listen`'s forward). close() ends them.
    server.keepAliveTimeout = 120_000;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const receiver = new Receiver(server, `https://127.0.0.1:${port}/webhooks`);
    server.on("connection", (socket: Socket) => {
      receiver.sockets.add(socket);
      socket.once("close", () => receiver.sockets.delete(socket));
    });
    server.on("request", (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const rawBody = Buffer.concat(chunks);
        let body: Json = undefined;
        try {
          body = JSON.parse(rawBody.toString("utf8"));
        } catch {
          body = undefined;
        }
        const received: ReceivedRequest = {
          method: req.method ?? "",
          path: req.url ?? "",
          headers: req.headers,
          rawBody,
          body,
          signatureValid: receiver.verify(rawBody, req.headers["x-webhook-signature"]),
          receivedAt: Date.now(),
        };
        receiver.requests.push(received);
        const reply = receiver.responder(received, receiver.requests.length - 1);
        received.reply = reply;
        if (reply === "hang") {
          res.once("close", () => (received.abandonedAt ??= Date.now()));
          const release = () => res.destroy();
          receiver.hanging.add(release);
          return;
        }
        if (reply === "reset") {
          req.socket.destroy();
          return;
        }
        const answer = () => {
          received.answeredAt = Date.now();
          res.writeHead(reply.status, { "Content-Type": "text/plain" }).end(reply.body ?? "");
        };
        if (reply.delayMs) setTimeout(answer, reply.delayMs);
        else answer();
      });
    });
    return receiver;
  }

  /** The signing secret to verify with (as shown once at endpoint creation). */
  useSecret(secret: string): this {
    this.secret = secret;
    return this;
  }

  respond(responder: Responder | Reply): this {
    this.responder = typeof responder === "function" ? responder : () => responder;
    return this;
  }

  // The guide's example (docs/examples), not the app's signing code: an independent HMAC check.
  private verify(rawBody: Buffer, header: string | string[] | undefined): boolean {
    if (!this.secret || typeof header !== "string") return false;
    return verifyWebhookSignature(rawBody, header, this.secret);
  }

  /** Waits until `count` requests arrived (or `predicate` holds). */
  async waitFor(count: number | ((requests: ReceivedRequest[]) => boolean), timeoutMs = 20_000): Promise<ReceivedRequest[]> {
    const done = typeof count === "number" ? (r: ReceivedRequest[]) => r.length >= count : count;
    const deadline = Date.now() + timeoutMs;
    while (!done(this.requests)) {
      if (Date.now() > deadline) throw new Error(`Receiver: condition not met within ${timeoutMs} ms (${this.requests.length} requests).`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.requests;
  }

  /**
   * The first request `match` accepts, once one has arrived. Delivery is at least once (a repeat
   * of an answer read too late on a loaded machine), so a test finds a request by what it carries,
   * not by its place among the requests (docs/testing.md, "A receiver is read by what it must have got").
   */
  async first(match: (request: ReceivedRequest) => boolean, timeoutMs = 20_000): Promise<ReceivedRequest> {
    return (await this.waitFor((requests) => requests.some(match), timeoutMs)).find(match)!;
  }

  /** The most requests that were open at once (received, not yet answered) among `requests`. */
  static maxOpenAtOnce(requests: ReceivedRequest[]): number {
    return Math.max(
      0,
      ...requests.map(
        (at) => requests.filter((other) => other.receivedAt <= at.receivedAt && (other.answeredAt ?? Infinity) > at.receivedAt).length,
      ),
    );
  }

  /**
   * Stops listening, then ends every connection, whatever its state. closeAllConnections() alone
   * knows only connections past the TLS handshake: one still in its handshake (a delivery that
   * was connecting at close, as a replay's last events are) kept close() waiting for the
   * handshake's 120 s timeout, or for the idle 120 s after its request, and a CI run's test timed out in its `finally`.
   */
  async close(): Promise<void> {
    for (const release of this.hanging) release();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

/** An HTTPS URL on loopback where nothing listens: connection refused. */
export async function refusedUrl(): Promise<string> {
  return `https://127.0.0.1:${await freePort()}/webhooks`;
}

/** Polls `read` until `accept` holds. */
export async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
