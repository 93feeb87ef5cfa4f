import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { verifyWebhookSignature } from "@/docs/examples/verify-webhook";
import { deliveryHeaders, standardKey } from "@/lib/webhooks/signing";

const message = (body: string) => ({
  body: Buffer.from(body),
  eventId: "evt_prod_1",
  eventType: "customer.created",
  deliveryId: "ed_prod_1",
  attempt: 1,
  sentAt: new Date(),
});

describe("delivery headers", () => {
  it("signs for the official library and keeps the spec's header keyed with the whole secret", () => {
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    const headers = deliveryHeaders({ current: secret, previous: null }, message('{"a":"é"}'));
    expect(new Webhook(secret).verify('{"a":"é"}', headers)).toEqual({ a: "é" });
    expect(verifyWebhookSignature('{"a":"é"}', headers["X-Webhook-Signature"], secret)).toBe(true);
    expect(headers["webhook-id"]).toBe("evt_prod_1");
  });

  it("reads secrets made before the switch (base64url) as the same key bytes", () => {
    const bytes = randomBytes(32);
    const old = `whsec_${bytes.toString("base64url")}`;
    expect(standardKey(old)).toEqual(bytes);
    const headers = deliveryHeaders({ current: old, previous: null }, message("{}"));
    // The standard form of the old secret is the same bytes in standard base64.
    expect(new Webhook(`whsec_${bytes.toString("base64")}`).verify("{}", headers)).toEqual({});
    expect(verifyWebhookSignature("{}", headers["X-Webhook-Signature"], old)).toBe(true);
  });

  it("signs with both secrets during an overlap", () => {
    const current = `whsec_${randomBytes(32).toString("base64")}`;
    const previous = `whsec_${randomBytes(32).toString("base64")}`;
    const headers = deliveryHeaders({ current, previous }, message("{}"));
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    for (const secret of [current, previous]) expect(new Webhook(secret).verify("{}", headers)).toEqual({});
    expect(verifyWebhookSignature("{}", headers["X-Webhook-Signature"], current)).toBe(true);
    expect(verifyWebhookSignature("{}", headers["X-Webhook-Signature-Previous"], previous)).toBe(true);
  });
});
