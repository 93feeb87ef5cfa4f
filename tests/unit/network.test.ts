import { describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { assertPublicLiteral, BlockedAddressError, isAllowedAddress, isPublicAddress } from "@/lib/webhooks/network";
import { previousAttributes } from "@/lib/webhooks/payload";
import { signPayload } from "@/lib/webhooks/signature";
import { createHmac } from "node:crypto";

describe("the delivery network guard", () => {
  const refused = [
    "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
    "224.0.0.1", "::1", "fe80::1", "fd00:ec2::254", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::",
  ];
  for (const address of refused) {
    it(`refuses ${address}`, () => {
      expect(isPublicAddress(address)).toBe(false);
    });
  }
  for (const address of ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
    it(`allows ${address}`, () => {
      expect(isPublicAddress(address)).toBe(true);
    });
  }
  it("checks IP-literal hosts before connecting", () => {
    expect(() => assertPublicLiteral("[::1]")).toThrow(BlockedAddressError);
    expect(() => assertPublicLiteral("169.254.169.254")).toThrow(/non-public address 169\.254\.169\.254/);
    expect(() => assertPublicLiteral("example.com")).not.toThrow();
  });
});

describe("loopback: 127.0.0.1 and localhost alike", () => {
  it("refuses both spellings (and ::1) unless loopback is allowed; other private addresses stay refused", () => {
    for (const host of ["127.0.0.1", "localhost", "LocalHost.", "api.localhost", "[::1]"]) {
      expect(() => assertPublicLiteral(host), host).toThrow(BlockedAddressError);
      expect(() => assertPublicLiteral(host, true), host).not.toThrow();
    }
    for (const host of ["10.0.0.1", "192.168.1.1", "169.254.169.254", "[fd00::1]"]) {
      expect(() => assertPublicLiteral(host, true), host).toThrow(BlockedAddressError);
    }
    expect(isAllowedAddress("127.0.0.1", true)).toBe(true);
    expect(isAllowedAddress("::ffff:127.0.0.1", true)).toBe(true);
    expect(isAllowedAddress("::1", false)).toBe(false);
    expect(isAllowedAddress("10.0.0.1", true)).toBe(false);
  });

  it("allows loopback in development, or with private networks; never in production without them", () => {
    const loopback = (env: Record<string, string>) => loadConfig(env).webhooks.allowLoopback;
    expect(loopback({ NODE_ENV: "development" })).toBe(true);
    expect(loopback({ NODE_ENV: "development", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false" })).toBe(false);
    expect(loopback({ NODE_ENV: "production" })).toBe(false);
    expect(loopback({ NODE_ENV: "test" })).toBe(false);
    expect(loopback({ NODE_ENV: "production", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" })).toBe(true);
    expect(loadConfig({ NODE_ENV: "development" }).webhooks.allowPrivateNetworks).toBe(false);
  });
});

describe("signatures and payload details", () => {
  it("signs the exact bytes: sha256= and lowercase hex HMAC-SHA256", () => {
    const body = Buffer.from('{"id":"evt_prod_x","amount_atom":100}');
    const expected = createHmac("sha256", "whsec_test").update(body).digest("hex");
    expect(signPayload("whsec_test", body)).toBe(`sha256=${expected}`);
    expect(signPayload("whsec_test", Buffer.from('{"id": "evt_prod_x","amount_atom":100}'))).not.toBe(`sha256=${expected}`);
  });

  it("lists only changed top-level fields with their previous values", () => {
    expect(
      previousAttributes(
        { name: "A", email: "a@x", metadata: { k: "1" }, gone: 1 },
        { name: "B", email: "a@x", metadata: { k: "2" }, added: true },
      ),
    ).toEqual({ name: "A", metadata: { k: "1" }, gone: 1, added: null });
  });
});
