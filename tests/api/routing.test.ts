import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRouter } from "@/lib/server/routes";
import { api, apiBaseUrl, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";

/**
 * Issue 13, item 5: the OpenAPI document and what the server serves are the same set. The router
 * serves the operations list; the static route files beside the catch-all are walked from disk.
 */

// Served under /api by their own route files, and deliberately not in the merchants' contract.
const UNDOCUMENTED_STATIC_ROUTES: Record<string, string> = {
  "/auth/[...nextauth]": "next-auth's sign-in endpoints for the dashboard",
  "/inngest": "Inngest's serve protocol (registration and function runs)",
  "/cron/clock": "Vercel Cron plumbing behind CRON_SECRET (lib/cron/operations.ts)",
  "/cron/deliveries": "Vercel Cron plumbing behind CRON_SECRET (lib/cron/operations.ts)",
};
const ROUTER_NOT_FOUND = "No API operation exists at this path.";
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

function staticRouteFiles(dir = path.join(process.cwd(), "app/api"), prefix = ""): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return staticRouteFiles(path.join(dir, entry.name), `${prefix}/${entry.name}`);
    return entry.name === "route.ts" ? [prefix] : [];
  });
}

let document: Json;
let merchant: Merchant;

beforeAll(async () => {
  merchant = await newMerchant();
  document = await (await fetch(`${apiBaseUrl()}/openapi.json`)).json();
});

describe("the OpenAPI document and the served paths", () => {
  it("documents itself, health and readiness", () => {
    expect(document.paths["/openapi.json"]?.get?.operationId).toBe("getOpenApiDocument");
    expect(document.paths["/health"]?.get?.operationId).toBe("getHealth");
    expect(document.paths["/health/ready"]?.get?.operationId).toBe("getReadiness");
  });

  it("serves every documented operation: no request gets the router's 404 or a 405", async () => {
    const documented = Object.entries(document.paths as Record<string, Json>).flatMap(([template, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ template, method, operation: item[method] })),
    );
    expect(documented.length).toBeGreaterThan(100);
    const client = api();
    for (const { template, method, operation } of documented) {
      const url = template.replace("{account_id}", merchant.accountId).replace(/\{\w+\}/g, "x1");
      // The paths come from the document at run time, so the compiler cannot check them; their answers are still held to Problem.
      const response = await client.offContract.request(method.toUpperCase(), url);
      const label = `${method.toUpperCase()} ${template}`;
      expect(response.headers.get("x-request-id"), label).toMatch(/^req_/);
      expect(response.status, label).not.toBe(405);
      expect(response.status === 404 ? response.body?.detail : null, label).not.toBe(ROUTER_NOT_FOUND);
      // Without a token an operation that needs one reaches authentication: the route was found.
      if ((operation.security as unknown[]).length > 0) expect(response.status, label).toBe(401);
    }
  });

  it("documents every path the router serves, with the same methods", () => {
    expect(apiRouter.paths.size).toBeGreaterThan(100);
    for (const [served, methods] of apiRouter.paths) {
      const item = document.paths[served];
      expect(item, served).toBeDefined();
      for (const method of METHODS) {
        expect(Boolean(item[method]), `${method} ${served}`).toBe(methods.includes(method.toUpperCase() as never));
      }
    }
    expect(Object.keys(document.paths).sort()).toEqual([...apiRouter.paths.keys()].sort());
  });

  it("documents every static route file under app/api, but for a short list of plumbing", () => {
    const files = staticRouteFiles().filter((route) => route !== "/[[...path]]");
    for (const route of files) {
      const openApiPath = route.replace(/\[(\w+)\]/g, "{$1}");
      if (document.paths[openApiPath]) continue;
      expect(UNDOCUMENTED_STATIC_ROUTES[route], `app/api${route}/route.ts is served but not documented`).toBeDefined();
    }
    // The exceptions stay current: each names a route file that exists.
    for (const route of Object.keys(UNDOCUMENTED_STATIC_ROUTES)) expect(files).toContain(route);
  });
});
