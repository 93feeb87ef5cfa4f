import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { deliveryHeaders, type SigningSecrets } from "@/lib/webhooks/signing";
import { webhooks, WebhookVerificationError } from "@/packages/sdk/src/index";

const newSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

const event = {
  id: "evt_1",
  object: "event",
  type: "customer.created",
  sequence: 1,
  created: 1_790_000_000,
  livemode: false,
  data: { object: { id: "cus_1", object: "customer", email: "a@example.com" } },
};

/** Headers exactly as the service signs a delivery (lib/webhooks/signing.ts). */
function signed(secrets: SigningSecrets, body: Buffer, sentAt = new Date()): Record<string, string> {
  return deliveryHeaders(secrets, { body, eventId: event.id, eventType: event.type, deliveryId: "ed_1", attempt: 1, sentAt });
}

describe("webhooks.verify", () => {
  const secret = newSecret();
  const body = Buffer.from(JSON.stringify(event));

  it("returns the event of a delivery signed by the service (Buffer or string body, plain or Fetch headers)", () => {
    const headers = signed({ current: secret, previous: null }, body);
    expect(webhooks.verify(body, headers, secret)).toEqual(event);
    expect(webhooks.verify(body.toString("utf8"), new Headers(headers), secret)).toEqual(event);
    // Node's IncomingHttpHeaders: lower-case names.
    const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
    expect(webhooks.verify(body, lower, secret)).toEqual(event);
  });

  it("verifies with either secret during a rotation's overlap", () => {
    const previous = newSecret();
    const headers = signed({ current: secret, previous }, body);
    expect(webhooks.verify(body, headers, secret)).toEqual(event);
    expect(webhooks.verify(body, headers, previous)).toEqual(event);
  });

  it("rejects a tampered body, another secret, an old or future timestamp and missing headers", () => {
    const headers = signed({ current: secret, previous: null }, body);
    const tampered = Buffer.from(JSON.stringify({ ...event, type: "customer.deleted" }));
    const tenMinutes = 10 * 60 * 1000;
    const attempts: [string | Buffer, Record<string, string>, string][] = [
      [tampered, headers, secret],
      [`${body.toString("utf8")} `, headers, secret],
      [body, headers, newSecret()],
      [body, signed({ current: secret, previous: null }, body, new Date(Date.now() - tenMinutes)), secret],
      [body, signed({ current: secret, previous: null }, body, new Date(Date.now() + tenMinutes)), secret],
      [body, { ...headers, "webhook-signature": "" }, secret],
      [body, { "webhook-id": headers["webhook-id"]!, "webhook-timestamp": headers["webhook-timestamp"]! }, secret],
    ];
    for (const [raw, sent, key] of attempts) {
      expect(() => webhooks.verify(raw, sent, key)).toThrow(WebhookVerificationError);
    }
  });

  it("rejects a signed body that is not an event", () => {
    const notEvent = Buffer.from("[1,2,3]");
    expect(() => webhooks.verify(notEvent, signed({ current: secret, previous: null }, notEvent), secret)).toThrow(WebhookVerificationError);
  });
});
