import { describe, expect, it } from "vitest";
import { safeRedirectPath } from "@/lib/auth/safe-redirect";

const ORIGIN = "http://127.0.0.1:3000";

describe("safeRedirectPath: only same-origin paths after sign-in and sign-up", () => {
  it.each([
    ["/", "/"],
    ["/accounts/acc_prod_123/events", "/accounts/acc_prod_123/events"],
    ["/customers?q=Jenny%20Rosen&limit=10#top", "/customers?q=Jenny%20Rosen&limit=10#top"],
    ["/prices?product=prod_1&active=false", "/prices?product=prod_1&active=false"],
  ])("keeps the path %s", (target, expected) => {
    expect(safeRedirectPath(target, ORIGIN)).toBe(expected);
    expect(safeRedirectPath(target)).toBe(expected);
  });

  it.each([
    ["an absolute URL on this origin", `${ORIGIN}/accounts/acc_prod_1?tab=x`, "/accounts/acc_prod_1?tab=x"],
    ["this origin's root", `${ORIGIN}`, "/"],
  ])("reduces %s to its path", (_name, target, expected) => {
    expect(safeRedirectPath(target, ORIGIN)).toBe(expected);
  });

  it.each([
    ["nothing", undefined],
    ["an empty string", ""],
    ["protocol-relative //host", "//attacker.example/phish"],
    ["protocol-relative ///host", "///attacker.example/phish"],
    ["backslash /\\host", "/\\attacker.example/phish"],
    ["backslashes \\\\host", "\\\\attacker.example/phish"],
    ["backslash later in the path", "/accounts\\..\\..\\attacker.example"],
    ["https: to another host", "https://attacker.example/phish"],
    ["http: to another host", "http://attacker.example/"],
    ["another port of this host", "http://127.0.0.1:4000/"],
    ["credentials before this host", "http://user:pass@127.0.0.1:3000/"],
    ["javascript:", "javascript:alert(document.cookie)"],
    ["JaVaScRiPt: with a leading space", " javascript:alert(1)"],
    ["data:", "data:text/html,<script>alert(1)</script>"],
    ["a relative path", "accounts/acc_prod_1"],
    ["encoded //: %2F%2Fhost", "%2F%2Fattacker.example/phish"],
    ["half-encoded /%2Fhost", "/%2Fattacker.example/phish"],
    ["encoded backslash /%5Chost", "/%5Cattacker.example/phish"],
    ["lower-case /%5chost", "/%5cattacker.example/phish"],
    ["double-encoded /%252Fhost", "/%252Fattacker.example/phish"],
    ["deeply encoded", "/%25252525252Fattacker.example"],
    ["malformed percent-encoding", "/%E0%A4%A"],
    ["a tab inside //", "/\t/attacker.example/phish"],
    ["a newline inside //", "/\n/attacker.example/phish"],
    ["a carriage return inside //", "/\r/attacker.example/phish"],
    ["an encoded tab /%09/host", "/%09/attacker.example/phish"],
    ["an encoded newline /%0A/host", "/%0A/attacker.example"],
    ["a NUL", "/\u0000/attacker.example"],
  ])("refuses %s", (_name, target) => {
    expect(safeRedirectPath(target, ORIGIN)).toBe("/");
    expect(safeRedirectPath(target)).toBe("/");
  });
});
