import { validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { API_OPERATIONS } from "@/lib/server/openapi";
import { apiBaseUrl } from "../helpers/api";

describe("OpenAPI", () => {
  it("serves a valid OpenAPI 3.1 document with every operation", async () => {
    const response = await fetch(`${apiBaseUrl()}/openapi.json`);
    expect(response.status).toBe(200);
    const document = await response.json();
    expect(document.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(document));
    expect(result.valid ? [] : result.errors).toEqual([]);

    for (const operation of API_OPERATIONS) {
      const method = operation.method.toLowerCase();
      expect(document.paths[operation.path]?.[method]?.operationId, operation.path).toBe(operation.operationId);
      if (operation.unscopedPath) expect(document.paths[operation.unscopedPath]?.[method]).toBeDefined();
    }
    // The spec's endpoints 1 to 9.
    for (const [path, method] of [
      ["/{account_id}/billing-status", "get"],
      ["/{account_id}/events", "get"],
      ["/{account_id}/events/{event_id}", "get"],
      ["/{account_id}/events/{event_id}/deliveries", "get"],
      ["/{account_id}/events/{event_id}/full", "get"],
      ["/customers", "get"],
      ["/customers", "post"],
      ["/customers/{customer_id}", "get"],
    ] as const) {
      expect(document.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    // Documented from the same zod schema the route validates with.
    const createCustomer = document.components.schemas.CustomerCreateInput;
    expect(createCustomer.required).toEqual(["email"]);
    expect(createCustomer.additionalProperties).toBe(false);
  });

  it("serves a readable API reference page", async () => {
    const response = await fetch(`${apiBaseUrl().replace(/\/api$/, "")}/reference`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/text\/html/);
    expect(await response.text()).toContain("API reference");
  });
});
