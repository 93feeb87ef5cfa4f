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

const send = (url: string, allowPrivateNetworks: boolean) =>
  sendWebhook({ url, body: Buffer.from("{}"), headers: { "Content-Type": "application/json" }, timeoutMs: 2000, allowPrivateNetworks });

describe("deliveries to private networks", () => {
  it("are refused by default, for IP literals and for names resolving to them, before any request", async () => {
    const port = new URL(receiver.url).port;
    for (const url of [receiver.url, `https://localhost:${port}/webhooks`]) {
      const result = await send(url, false);
      expect(result).toMatchObject({ status: null, blocked: true, error: expect.stringMatching(/non-public address/) });
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it("go through when WEBHOOK_ALLOW_PRIVATE_NETWORKS allows them", async () => {
    const result = await send(receiver.url, true);
    expect(result).toMatchObject({ status: 200, blocked: false, error: null, excerpt: "ok" });
    expect(receiver.requests).toHaveLength(1);
  });
});
