import { beforeAll, describe, expect, it } from "vitest";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

let merchant: Merchant;
let other: Merchant;
beforeAll(async () => {
  [merchant, other] = await Promise.all([newMerchant(), newMerchant()]);
  for (const [email, name] of [
    ["ada@lovelace.example", "Ada Lovelace"],
    ["grace@hopper.example", "Grace Hopper"],
    ["adam_smith@example.com", null],
    ["pct@example.com", "100% Customer"],
  ] as const) {
    const response = await merchant.client.post("/customers", { email, ...(name ? { name } : {}) });
    expect(response.status).toBe(201);
  }
  expect((await other.client.post("/customers", { email: "ada@elsewhere.example", name: "Ada Other" })).status).toBe(201);
});

async function search(q: string) {
  const response = await merchant.client.get(`/customers?q=${encodeURIComponent(q)}`);
  expect(response.status).toBe(200);
  return { emails: (response.body.items as { email: string }[]).map((c) => c.email).sort(), total: response.body.total as number };
}

describe("customer search (q)", () => {
  it("finds customers by a case-insensitive prefix of their email or name, in this account only", async () => {
    expect(await search("ADA")).toEqual({ emails: ["ada@lovelace.example", "adam_smith@example.com"], total: 2 });
    expect(await search("grace h")).toEqual({ emails: ["grace@hopper.example"], total: 1 });
    expect(await search("gr")).toEqual({ emails: ["grace@hopper.example"], total: 1 });
    expect(await search("lovelace")).toEqual({ emails: [], total: 0 });
  });

  it("treats LIKE wildcards as text", async () => {
    expect(await search("ada_")).toEqual({ emails: [], total: 0 });
    expect(await search("adam_")).toEqual({ emails: ["adam_smith@example.com"], total: 1 });
    expect(await search("%")).toEqual({ emails: [], total: 0 });
    expect(await search("100%")).toEqual({ emails: ["pct@example.com"], total: 1 });
  });

  it("refuses an empty or oversized q with a problem naming it", async () => {
    const empty = await merchant.client.get("/customers?q=");
    expectProblem(empty, 400);
    expect(empty.body.errors).toEqual([{ field: "q", message: "q must not be empty." }]);
    const long = await merchant.client.get(`/customers?q=${"a".repeat(201)}`);
    expectProblem(long, 400);
    expect(long.body.errors[0].field).toBe("q");
  });
});
