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
    // Oldest first: the prefix match is older than the substring matches it is listed before.
    ["smithers@example.com", "Waylon Smithers"],
    ["bob@smith.example", "Bob Smith"],
    ["jo@example.com", "Jo Goldsmith"],
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

async function page(query: string) {
  const response = await merchant.client.get(`/customers?${query}`);
  expect(response.status).toBe(200);
  return response.body as { items: { id: string; email: string }[]; has_more: boolean; total: number };
}

describe("customer search (q)", () => {
  it("finds customers by a case-insensitive prefix of their email or name, in this account only", async () => {
    expect(await search("ADA")).toEqual({ emails: ["ada@lovelace.example", "adam_smith@example.com"], total: 2 });
    expect(await search("grace h")).toEqual({ emails: ["grace@hopper.example"], total: 1 });
    expect(await search("gr")).toEqual({ emails: ["grace@hopper.example"], total: 1 });
  });

  it("finds a substring of the name or the email from 3 characters on", async () => {
    expect(await search("Lovelace")).toEqual({ emails: ["ada@lovelace.example"], total: 1 });
    expect(await search("love")).toEqual({ emails: ["ada@lovelace.example"], total: 1 });
    expect(await search("hopper.ex")).toEqual({ emails: ["grace@hopper.example"], total: 1 });
    expect(await search("OPPE")).toEqual({ emails: ["grace@hopper.example"], total: 1 });
    expect(await search("_smith@")).toEqual({ emails: ["adam_smith@example.com"], total: 1 });
    // Shorter terms keep the prefix path: "ce" is inside "Grace" but starts nothing.
    expect(await search("ce")).toEqual({ emails: [], total: 0 });
    expect(await search("zzz")).toEqual({ emails: [], total: 0 });
  });

  it("lists prefix matches first, then the rest newest first, and pages through both by cursor", async () => {
    const all = await page("q=smith&limit=10");
    expect(all.items.map((c) => c.email)).toEqual(["smithers@example.com", "jo@example.com", "bob@smith.example", "adam_smith@example.com"]);
    expect(all.total).toBe(4);
    const walked: string[] = [];
    let next = await page("q=smith&limit=1");
    walked.push(next.items[0]!.email);
    while (next.has_more) {
      next = await page(`q=smith&limit=1&starting_after=${next.items[0]!.id}`);
      walked.push(next.items[0]!.email);
    }
    expect(walked).toEqual(all.items.map((c) => c.email));
    // Back from the first substring match: the prefix match before it.
    const back = await page(`q=smith&limit=5&ending_before=${all.items[1]!.id}`);
    expect(back.items.map((c) => c.email)).toEqual(["smithers@example.com"]);
    const offset = await page("q=smith&limit=2&offset=1");
    expect(offset.items.map((c) => c.email)).toEqual(["jo@example.com", "bob@smith.example"]);
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
