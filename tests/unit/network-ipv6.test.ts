import { describe, expect, it } from "vitest";
import { assertPublicLiteral, BlockedAddressError, isPublicAddress } from "@/lib/webhooks/network";

describe("IPv6 forms that embed an IPv4 address are judged as that address", () => {
  const refused = [
    "::7f00:1", // IPv4-compatible 127.0.0.1, hex form
    "::127.0.0.1",
    "::a00:1", // 10.0.0.1
    "::ffff:7f00:1",
    "::ffff:0:127.0.0.1", // SIIT
    "::ffff:169.254.169.254",
    "64:ff9b::127.0.0.1", // NAT64
    "64:ff9b::a9fe:a9fe", // NAT64 169.254.169.254
    "64:ff9b:1::a00:1", // NAT64 local-use prefix: never public
    "2002:7f00:1::", // 6to4 of 127.0.0.1
    "2002:c0a8:101::1", // 6to4 of 192.168.1.1
    "2001:0:4136:e378:8000:63bf:3fff:fdd2", // Teredo: the client address is obfuscated, refused
  ];
  for (const address of refused) {
    it(`refuses ${address}`, () => {
      expect(isPublicAddress(address)).toBe(false);
    });
  }

  for (const address of ["64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8", "::808:808"]) {
    it(`allows ${address}, which embeds the public 8.8.8.8`, () => {
      expect(isPublicAddress(address)).toBe(true);
    });
  }

  it("refuses bracketed literals in webhook URLs, e.g. https://[::7f00:1]/", () => {
    expect(() => assertPublicLiteral(new URL("https://[::7f00:1]/hook").hostname)).toThrow(BlockedAddressError);
    expect(() => assertPublicLiteral(new URL("https://[64:ff9b::7f00:1]/hook").hostname)).toThrow(BlockedAddressError);
    expect(() => assertPublicLiteral(new URL("https://[2002:a00:1::]/hook").hostname)).toThrow(BlockedAddressError);
  });
});
