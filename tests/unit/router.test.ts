import { describe, expect, it } from "vitest";
import { z } from "zod";
import { handle } from "@/lib/api/handler";
import { defineOperation, type HttpMethod } from "@/lib/api/operation";
import { compileRouter } from "@/lib/api/router";
import { newId } from "@/lib/ids";

// Public operations run through handle() without a database, so the router is tested end to end.
function op(operationId: string, method: HttpMethod, path: string, unscopedPath?: string) {
  return defineOperation({
    operationId,
    method,
    path,
    ...(unscopedPath ? { unscopedPath } : {}),
    summary: operationId,
    tag: "Test",
    access: "public",
    response: { status: 200, description: "ok", schema: z.object({ op: z.string(), params: z.record(z.string(), z.string()) }) },
  });
}
const echo = (operation: ReturnType<typeof op>) =>
  handle(operation, async ({ params }) => ({ op: operation.operationId, params: params as Record<string, string> }));

const listThings = op("listThings", "GET", "/{account_id}/things", "/things");
const createThing = op("createThing", "POST", "/{account_id}/things", "/things");
const getThing = op("getThing", "GET", "/{account_id}/things/{thing_id}", "/things/{thing_id}");
const thingFeed = op("thingFeed", "GET", "/{account_id}/things/feed", "/things/feed");
const scopedOnly = op("scopedOnly", "GET", "/{account_id}/other/{other_id}/sub");
const operations = [listThings, createThing, getThing, thingFeed, scopedOnly];
const router = compileRouter(operations, operations.map(echo));

const call = (method: HttpMethod | "OPTIONS", segments: string[]) =>
  router.exports[method](new Request(`http://localhost/api/${segments.join("/")}`, { method }), {
    params: Promise.resolve({ path: segments }),
  });

describe("the operations router", () => {
  it("serves both path forms of an operation from its declaration, with their parameters", async () => {
    expect(await (await call("GET", ["things", "thg_1"])).json()).toEqual({ op: "getThing", params: { thing_id: "thg_1" } });
    const scoped = await call("GET", [newId("account"), "things", "thg_1"]);
    expect(scoped.status).toBe(200);
    expect((await scoped.json()).op).toBe("getThing");
    expect(router.match(["acc_x", "other", "o 1", "sub"])?.params).toEqual({ account_id: "acc_x", other_id: "o 1" });
    expect([...router.paths.keys()].sort()).toEqual([
      "/things",
      "/things/feed",
      "/things/{thing_id}",
      "/{account_id}/other/{other_id}/sub",
      "/{account_id}/things",
      "/{account_id}/things/feed",
      "/{account_id}/things/{thing_id}",
    ]);
  });

  it("prefers a literal segment to a parameter, and falls back to the parameter when the literal leads nowhere", () => {
    expect(router.match(["things", "feed"])?.params).toEqual({});
    // `things` is a literal at the root, but `/things/other/…` does not exist: `things` is an account segment here.
    expect(router.match(["things", "other", "o1", "sub"])?.params).toEqual({ account_id: "things", other_id: "o1" });
    expect(router.match(["things", ""])).toBeUndefined();
    expect(router.match([])).toBeUndefined();
    expect(router.match(["things", "thg_1", "extra"])).toBeUndefined();
  });

  it("answers 404 for an unknown path, 405 with Allow for a wrong method, and CORS preflights", async () => {
    const unknown = await call("GET", ["nope"]);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toBe("application/problem+json");
    expect((await unknown.json()).request_id).toMatch(/^req_/);
    expect((await call("OPTIONS", ["nope"])).status).toBe(404);

    const wrong = await call("DELETE", ["things"]);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, POST, OPTIONS");
    expect((await wrong.json()).instance).toBe("/api/things");

    const preflight = await call("OPTIONS", ["things", "thg_1"]);
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, OPTIONS");
  });

  it("keeps handle()'s account check: a non-account-id segment is 404", async () => {
    const response = await call("GET", ["not-an-account", "things"]);
    expect(response.status).toBe(404);
  });

  it("refuses a list and handlers that disagree, and ambiguous paths", () => {
    expect(() => compileRouter([listThings], [echo(listThings), echo(getThing)])).toThrow(/getThing has a handler but is not listed/);
    expect(() => compileRouter([listThings, getThing], [echo(listThings)])).toThrow(/No handler for getThing/);
    expect(() => compileRouter([listThings], [echo(listThings), echo(listThings)])).toThrow(/two handlers/);
    const twin = op("twin", "GET", "/{account_id}/things");
    expect(() => compileRouter([listThings, twin], [echo(listThings), echo(twin)])).toThrow(/Two operations serve GET/);
    const renamed = op("renamed", "POST", "/things/{id}");
    expect(() => compileRouter([getThing, renamed], [echo(getThing), echo(renamed)])).toThrow(/other parameter names/);
  });
});

describe("the API's router", () => {
  it("compiles from the real lists: every operation has its handler, on both of its paths", async () => {
    // Importing compiles it; a missing or unlisted handler throws here.
    const { apiRouter } = await import("@/lib/server/routes");
    const { API_OPERATIONS } = await import("@/lib/server/operations-index");
    for (const operation of API_OPERATIONS) {
      for (const path of [operation.path, operation.unscopedPath]) {
        if (path) expect(apiRouter.paths.get(path), `${operation.method} ${path}`).toContain(operation.method);
      }
    }
  });
});

describe("account-scoped operations", () => {
  it("each answer without the account id too, on its path minus /{account_id} (a token acts on its own account)", async () => {
    const { API_OPERATIONS } = await import("@/lib/server/operations-index");
    // A dashboard session names its account in the path, and an operator acts on any account: no unscoped twin.
    const scoped = API_OPERATIONS.filter(
      (operation) => operation.path.startsWith("/{account_id}/") && operation.access !== "dashboard" && operation.access !== "operator",
    );
    expect(scoped.length).toBeGreaterThan(50);
    const wrong = scoped
      .filter((operation) => operation.unscopedPath !== operation.path.slice("/{account_id}".length))
      .map((operation) => `${operation.operationId}: ${operation.unscopedPath ?? "(none)"}`);
    expect(wrong).toEqual([]);
  });
});
