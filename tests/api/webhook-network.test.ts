import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendWebhook } from "@/lib/webhooks/send";
import { Receiver } from "../helpers/receiver";

let receiver: Receiver;
beforeAll(async () => {
  receiver = await Receiver.start();
});
afterAll(async () => {
  await receiver.close();
});

const send = (url: string, allowPrivateNetworks: boolean, allowLoopback = false) =>
  sendWebhook({ url, body: Buffer.from("{}"), headers: { "Content-Type": "application/json" }, timeoutMs: 2000, allowPrivateNetworks, allowLoopback });

describe("deliveries to private networks", () => {
  it("are refused by default, for IP literals and for names resolving to them, before any request", async () => {
    const port = new URL(receiver.url).port;
    for (const url of [receiver.url, `https://localhost:${port}/webhooks`]) {
      const result = await send(url, false);
      expect(result).toMatchObject({ status: null, blocked: true, error: expect.stringMatching(/non-public address/) });
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it("to loopback go through where loopback is allowed (development), by IP and by name alike", async () => {
    const before = receiver.requests.length;
    const port = new URL(receiver.url).port;
    for (const url of [receiver.url, `https://localhost:${port}/webhooks`]) {
      expect(await send(url, false, true)).toMatchObject({ status: 200, blocked: false, error: null });
    }
    expect(receiver.requests.length - before).toBe(2);
  });

  it("go through when WEBHOOK_ALLOW_PRIVATE_NETWORKS allows them", async () => {
    const before = receiver.requests.length;
    const result = await send(receiver.url, true);
    expect(result).toMatchObject({ status: 200, blocked: false, error: null, excerpt: "ok" });
    expect(receiver.requests.length - before).toBe(1);
  });
});

describe("kept-alive sockets", () => {
  it("sends again on a new socket when a reused one was closed by the receiver, not when a fresh one is", async () => {
    const keptAlive = await Receiver.start();
    try {
      // The second request arrives on the first one's socket, which the receiver then drops.
      keptAlive.respond((_request, index) => (index === 1 ? "reset" : { status: 200, body: "ok" }));
      expect(await send(keptAlive.url, true)).toMatchObject({ status: 200 });
      expect(await send(keptAlive.url, true)).toMatchObject({ status: 200, error: null });
      expect(keptAlive.requests).toHaveLength(3);

      const fresh = await Receiver.start();
      try {
        fresh.respond("reset");
        expect(await send(fresh.url, true)).toMatchObject({ status: null, error: "The endpoint closed the connection." });
        expect(fresh.requests).toHaveLength(1);
      } finally {
        await fresh.close();
      }
    } finally {
      await keptAlive.close();
    }
  });
});
