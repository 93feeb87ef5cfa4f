import { base32crockford } from "@scure/base";
import { describe, expect, it } from "vitest";
import { ID_PREFIXES, isId, newId, newIdSuffix } from "@/lib/ids";

describe("identifiers", () => {
  it("have the shape <prefix><env>_<suffix> for every prefix of the spec", () => {
    for (const kind of Object.keys(ID_PREFIXES) as (keyof typeof ID_PREFIXES)[]) {
      const id = newId(kind);
      expect(id.startsWith(`${ID_PREFIXES[kind]}prod_`)).toBe(true);
      expect(isId(kind, id)).toBe(true);
      expect(id).toMatch(/^[a-z]+_prod_[0-9a-z]{29}$/);
    }
    expect(ID_PREFIXES).toMatchObject({
      account: "acc_",
      customer: "cus_",
      subscription: "sub_",
      invoice: "in_",
      product: "prod_",
      price: "price_",
      checkoutSession: "cs_",
      event: "evt_",
      eventDelivery: "ed_",
      webhookEndpoint: "whe_",
      request: "req_",
    });
  });

  it("sort in creation order, also within one millisecond", () => {
    const now = Date.UTC(2026, 10, 22);
    const sameInstant = Array.from({ length: 1000 }, () => newIdSuffix(now));
    const later = Array.from({ length: 10 }, (_, i) => newIdSuffix(now + 1 + i));
    const all = [...sameInstant, ...later];
    expect([...all].sort()).toEqual(all);
    expect(new Set(all).size).toBe(all.length);
  });

  it("are 48 bits of milliseconds followed by 96 random bits", () => {
    const now = Date.UTC(2030, 0, 1);
    const randomParts = Array.from({ length: 256 }, (_, i) => {
      const bytes = Buffer.from(base32crockford.decode(newIdSuffix(now + 10 + i * 2).toUpperCase()));
      expect(bytes).toHaveLength(18);
      expect(bytes.readUIntBE(0, 6)).toBe(now + 10 + i * 2);
      return bytes.subarray(6);
    });
    // Every one of the 96 bits takes both values across samples: none is fixed.
    for (let bit = 0; bit < 96; bit++) {
      const values = new Set(randomParts.map((part) => (part[bit >> 3]! >> (7 - (bit & 7))) & 1));
      expect(values.size, `bit ${bit}`).toBe(2);
    }
  });

  it("use only URL-safe characters", () => {
    const id = newId("customer");
    expect(encodeURIComponent(id)).toBe(id);
  });
});
