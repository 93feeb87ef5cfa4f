import { describe, expect, it } from "vitest";
import { GRANT_LEVELS, grants, RESOURCES } from "@/lib/permissions";
import { addressAllowed } from "@/lib/auth/tokens";
import { API_OPERATIONS, openApiDocument } from "@/lib/server/openapi";

/** The operations an API token can reach: the ones restricted keys are checked against. */
const TOKEN_OPERATIONS = API_OPERATIONS.filter((operation) => operation.access === "secret" || operation.access === "publishable");

describe("every operation declares the permission a restricted key needs (docs/api.md, 'Restricted keys')", () => {
  it("each secret and publishable operation declares one", () => {
    // A new operation (e.g. an export) fails here by name: add `permission: needs("<resource>", "read" | "write")`.
    const missing = TOKEN_OPERATIONS.filter((operation) => operation.permission === undefined).map(
      (operation) => `${operation.operationId} (${operation.method} ${operation.path})`,
    );
    expect(missing, `operations without a permission declaration: ${missing.join(", ")}`).toEqual([]);
  });

  it("public, dashboard and operator operations declare none (no restricted key reaches them)", () => {
    const declared = API_OPERATIONS.filter((operation) => !TOKEN_OPERATIONS.includes(operation) && operation.permission !== undefined);
    expect(declared.map((operation) => operation.operationId)).toEqual([]);
  });

  it("reads are GETs (and the two previews); everything else writes", () => {
    for (const operation of TOKEN_OPERATIONS) {
      const reads = operation.method === "GET" || /^preview/.test(operation.operationId);
      expect(operation.permission?.level, operation.operationId).toBe(reads ? "read" : "write");
    }
  });

  it("every resource but `tokens` guards some operation", () => {
    const used = new Set(TOKEN_OPERATIONS.map((operation) => operation.permission?.resource));
    expect(RESOURCES.filter((resource) => !used.has(resource))).toEqual(["tokens"]);
  });

  it("the OpenAPI document shows each one as x-required-permission and in the description", () => {
    const document = openApiDocument() as unknown as {
      paths: Record<string, Record<string, { operationId: string; description?: string; "x-required-permission"?: string }>>;
    };
    const byId = new Map(Object.values(document.paths).flatMap((item) => Object.values(item)).map((entry) => [entry.operationId, entry]));
    for (const operation of API_OPERATIONS) {
      const entry = byId.get(operation.operationId)!;
      const expected = operation.permission ? `${operation.permission.resource}:${operation.permission.level}` : undefined;
      expect(entry["x-required-permission"], operation.operationId).toBe(expected);
      if (expected) expect(entry.description).toContain(`Restricted keys need \`${expected}\``);
    }
  });
});

describe("grants", () => {
  it("write includes read; none and absent grant nothing", () => {
    const table = GRANT_LEVELS.map((granted) => [
      granted,
      grants({ invoices: granted }, { resource: "invoices", level: "read" }),
      grants({ invoices: granted }, { resource: "invoices", level: "write" }),
    ]);
    expect(table).toEqual([
      ["none", false, false],
      ["read", true, false],
      ["write", true, true],
    ]);
    expect(grants({ customers: "write" }, { resource: "invoices", level: "read" })).toBe(false);
  });
});

describe("addressAllowed", () => {
  it("matches IPv4, IPv4-mapped IPv6 and IPv6 against CIDR ranges", () => {
    expect(addressAllowed(["127.0.0.0/8"], "127.0.0.1")).toBe(true);
    expect(addressAllowed(["127.0.0.0/8"], "::ffff:127.0.0.1")).toBe(true);
    expect(addressAllowed(["10.0.0.0/8"], "127.0.0.1")).toBe(false);
    expect(addressAllowed(["2001:db8::/32"], "2001:db8::1")).toBe(true);
    expect(addressAllowed(["2001:db8::/32"], "127.0.0.1")).toBe(false);
    expect(addressAllowed(["::ffff:10.0.0.0/104"], "10.1.2.3")).toBe(true);
    expect(addressAllowed(["10.0.0.0/8"], null)).toBe(false);
  });
});
