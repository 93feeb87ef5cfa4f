import { describe, expect, it } from "vitest";
import { checkBreakingChanges, formatReport, type IntendedChange } from "@/scripts/openapi/breaking";

/**
 * The breaking-change gate (scripts/openapi/breaking.ts) on a small document: each kind of change
 * the gate exists for is reported, and what merchants' code survives passes.
 */
function contract() {
  const customer = {
    type: "object",
    properties: { id: { type: "string" }, email: { type: "string" }, status: { type: "string", enum: ["active", "archived"] } },
    required: ["id", "email", "status"],
  };
  return {
    openapi: "3.1.0",
    info: { title: "t", version: "1" },
    paths: {
      "/customers": {
        get: {
          operationId: "listCustomers",
          parameters: [{ in: "query", name: "status", schema: { type: "string", enum: ["active", "archived"] } }],
          responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Customer" } } } } },
        },
        post: {
          operationId: "createCustomer",
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: { type: "object", properties: { email: { type: "string" }, name: { type: "string" } }, required: ["email"] },
              },
            },
          },
          responses: { "201": { description: "ok", content: { "application/json": { schema: { $ref: "#/components/schemas/Customer" } } } } },
        },
      },
      "/coupons": {
        delete: { operationId: "deleteCoupon", responses: { "204": { description: "gone" } } },
      },
    },
    webhooks: {
      "customer.created": {
        post: {
          requestBody: { content: { "application/json": { schema: { type: "object", properties: { object: { $ref: "#/components/schemas/Customer" } }, required: ["object"] } } } },
          responses: { "200": { description: "received" } },
        },
      },
    },
    components: { schemas: { Customer: customer } },
  };
}

type Contract = ReturnType<typeof contract>;

function changed(edit: (document: Contract) => void, intended: IntendedChange[] = []) {
  const after = contract();
  edit(after);
  return checkBreakingChanges(contract(), after, intended);
}

const summaries = (report: ReturnType<typeof changed>) => report.unintended.map((change) => change.summary);

describe("the breaking-change check", () => {
  it("passes an unchanged document", () => {
    expect(formatReport(changed(() => {}))).toEqual([]);
  });

  it("reports a removed operation", () => {
    const report = changed((document) => {
      delete (document.paths as Partial<Contract["paths"]>)["/coupons"];
    });
    expect(summaries(report)).toEqual(["DELETE /coupons: operation removed"]);
    expect(report.unintended[0]!.path).toBe("/paths/~1coupons/delete");
  });

  it("reports a removed response field, at each operation answering it", () => {
    const report = changed((document) => {
      const customer = document.components.schemas.Customer as { properties: Partial<Contract["components"]["schemas"]["Customer"]["properties"]>; required: string[] };
      delete customer.properties.email;
      customer.required = ["id", "status"];
    });
    expect(summaries(report)).toEqual(
      expect.arrayContaining([
        'GET /customers, response 200 › email: removed (was {"type":"string"})',
        'POST /customers, response 201 › email: removed (was {"type":"string"})',
        'webhook customer.created, payload › object.email: removed (was {"type":"string"})',
      ]),
    );
  });

  it("reports a narrowed enum of a request parameter", () => {
    const report = changed((document) => {
      document.paths["/customers"].get.parameters[0]!.schema.enum = ["active"];
    });
    expect(summaries(report)).toEqual(['GET /customers, query parameter `status`: enum value "archived" removed']);
  });

  it("reports a narrowed type of a request field", () => {
    const report = changed((document) => {
      Object.assign(document.paths["/customers"].post.requestBody.content["application/json"].schema.properties.name, { maxLength: 10 });
    });
    expect(summaries(report)).toEqual(["POST /customers, request body › name: maxLength added 10"]);
  });

  it("reports a newly required request field", () => {
    const report = changed((document) => {
      document.paths["/customers"].post.requestBody.content["application/json"].schema.required.push("name");
    });
    expect(summaries(report)).toEqual(['POST /customers, request body: "name" became required']);
  });

  it("passes an added optional request field, an added response field and an added operation", () => {
    const report = changed((document) => {
      Object.assign(document.paths["/customers"].post.requestBody.content["application/json"].schema.properties, { phone: { type: "string" } });
      Object.assign(document.components.schemas.Customer.properties, { nickname: { type: "string" } });
      Object.assign(document.paths, { "/products": { get: { operationId: "listProducts", responses: { "200": { description: "ok" } } } } });
    });
    expect(formatReport(report)).toEqual([]);
  });

  it("passes a change listed as intended, and names the reason", () => {
    const report = changed(
      (document) => {
        delete (document.paths as Partial<Contract["paths"]>)["/coupons"];
      },
      [{ path: "/paths/~1coupons", reason: "coupons are retired (decisions.md)" }],
    );
    expect(formatReport(report)).toEqual([]);
    expect(report.intended.map(({ change, reason }) => [change.summary, reason])).toEqual([
      ["DELETE /coupons: operation removed", "coupons are retired (decisions.md)"],
    ]);
  });

  it("matches intended paths with * (one segment) and ** (any)", () => {
    const report = changed(
      (document) => {
        const customer = document.components.schemas.Customer as { properties: Partial<Contract["components"]["schemas"]["Customer"]["properties"]>; required: string[] };
        delete customer.properties.email;
        customer.required = ["id", "status"];
      },
      [
        { path: "/paths/*/*/responses/*/content/application~1json/schema/**/email", reason: "email moves to contacts" },
        { path: "/paths/*/*/responses/*/content/application~1json/schema/required", reason: "email moves to contacts" },
        { path: "/webhooks/customer.created", reason: "email moves to contacts" },
      ],
    );
    expect(formatReport(report)).toEqual([]);
    expect(report.intended.length).toBeGreaterThanOrEqual(5);
  });

  it("fails on an intended entry that matches nothing or gives no reason", () => {
    const report = changed(() => {}, [
      { path: "/paths/~1coupons/delete", reason: "retired" },
      { path: "/paths/~1customers/get", reason: " " },
    ]);
    expect(formatReport(report)).toEqual([
      'intended-breaking-changes entry "/paths/~1coupons/delete" matches no breaking change (remove it, or fix its path)',
      'intended-breaking-changes entry "/paths/~1customers/get" has no reason',
    ]);
  });
});
