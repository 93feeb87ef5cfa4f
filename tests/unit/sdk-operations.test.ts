import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { API_OPERATIONS } from "@/lib/server/operations-index";
import { Billing, OPERATIONS } from "@/packages/sdk/src/index";

const root = path.resolve(import.meta.dirname, "../..");

/** What the server routes: every operation, and its `…ForTokenAccount` twin on the unscoped path. */
const served = API_OPERATIONS.flatMap((operation) => [
  { id: operation.operationId, method: operation.method, path: operation.path },
  ...(operation.unscopedPath ? [{ id: `${operation.operationId}ForTokenAccount`, method: operation.method, path: operation.unscopedPath }] : []),
]);

describe("SDK operations", () => {
  it("covers every operation the server serves, with its method and path, and nothing else", () => {
    const sdk = Object.entries(OPERATIONS).map(([id, { method, path }]) => ({ id, method, path }));
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(sdk.sort(byId)).toEqual([...served].sort(byId));
    expect(served.some((operation) => operation.id.endsWith("ForTokenAccount"))).toBe(true);
  });

  it("has a typed method per operation on billing.operations", () => {
    const billing = new Billing({ token: "sk_test", baseUrl: "http://127.0.0.1:1/api" });
    expect(Object.keys(billing.operations).sort()).toEqual(served.map((operation) => operation.id).sort());
    expect(Object.values(billing.operations).every((method) => typeof method === "function")).toBe(true);
  });

  it("matches the packaged OpenAPI document: every documented operationId, nothing more", () => {
    const document = JSON.parse(readFileSync(path.join(root, "packages/sdk/openapi.json"), "utf8")) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const documented = Object.values(document.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => (typeof operation === "object" && operation?.operationId ? [operation.operationId] : [])),
    );
    expect(documented.sort()).toEqual(Object.keys(OPERATIONS).sort());
  });
});
