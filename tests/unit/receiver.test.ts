import { connect, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Receiver } from "../helpers/receiver";
import { makeTestCertificate } from "../helpers/tls";

/**
 * The tests' HTTPS receiver must close while a sender is still connecting or idle on it: webhook
 * senders (the app, `npm run listen`) keep connecting until the test ends. Before, a connection
 * still in its TLS handshake held close() for the handshake's 120 s timeout (webhook-dx's replay, in CI).
 */
describe("the tests' HTTPS receiver", () => {
  let ca: Buffer;
  beforeAll(() => {
    const { certPath, keyPath } = makeTestCertificate();
    vi.stubEnv("TEST_TLS_CERT", certPath);
    vi.stubEnv("TEST_TLS_KEY", keyPath);
    ca = readFileSync(certPath);
  });
  // The files after this one share the worker (vitest.config.ts, isolate: false).
  afterAll(() => {
    vi.unstubAllEnvs();
  });

  function ended(socket: Socket): Promise<void> {
    return new Promise((resolve) => (socket.closed ? resolve() : socket.once("close", () => resolve())));
  }

  it("closes with one connection still before its TLS handshake and one idle after a request", async () => {
    const receiver = await Receiver.start();
    const port = Number(new URL(receiver.url).port);

    const connecting = connect(port, "127.0.0.1");
    await new Promise((resolve) => connecting.once("connect", resolve));

    const idle = connectTls({ port, host: "127.0.0.1", ca, servername: "localhost" });
    await new Promise((resolve) => idle.once("secureConnect", resolve));
    idle.write("POST /webhooks HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n{}");
    const answer = await new Promise<string>((resolve) => idle.once("data", (chunk: Buffer) => resolve(chunk.toString("utf8"))));
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(receiver.requests).toHaveLength(1);

    // Resolves only once both connections are gone: the test's 60 s bound is below the 120 s it waited.
    await receiver.close();
    await Promise.all([ended(connecting), ended(idle)]);
  });
});
