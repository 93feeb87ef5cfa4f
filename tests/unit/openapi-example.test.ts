import { describe, expect, it } from "vitest";
import { API_OPERATIONS } from "@/lib/server/operations-index";
import { openApiDocument } from "@/lib/server/openapi";
import { exampleValue } from "@/lib/openapi-example";

// The reference's curl examples send these bodies: each must pass the operation's own validation.
describe("request body examples generated from the OpenAPI document", () => {
  const document = openApiDocument();
  const components = document.components?.schemas ?? {};
  const withBody = API_OPERATIONS.filter((operation) => operation.body);

  it("covers the operations that take a body", () => {
    expect(withBody.length).toBeGreaterThan(30);
  });

  it.each(withBody.map((operation) => [operation.operationId, operation] as const))("%s: the example is valid", (_id, operation) => {
    const requestBody = document.paths?.[operation.path]?.[operation.method.toLowerCase() as "post"]?.requestBody;
    const schema = requestBody && "content" in requestBody ? requestBody.content["application/json"]?.schema : undefined;
    expect(schema).toBeDefined();
    const example = exampleValue(schema!, components);
    const parsed = operation.body!.safeParse(example);
    expect(parsed.error?.issues ?? [], JSON.stringify(example)).toEqual([]);
  });

  it("prefers the schema's example, then required fields, then one field with an example", () => {
    const schemas = {
      Whole: { type: "object" as const, properties: { a: { type: "string" as const } }, example: { a: "given" } },
    };
    expect(exampleValue({ $ref: "#/components/schemas/Whole" }, schemas)).toEqual({ a: "given" });
    expect(
      exampleValue(
        { type: "object", required: ["n"], properties: { n: { type: "integer", minimum: 3 }, s: { type: "string", example: "x" } } },
        schemas,
      ),
    ).toEqual({ n: 3 });
    expect(exampleValue({ type: "object", properties: { n: { type: "integer" }, s: { type: "string", example: "x" } } }, schemas)).toEqual({ s: "x" });
    expect(exampleValue({ type: "string", description: "The product (`prod_…`)." }, schemas)).toMatch(/^prod_[a-z]+_[0-9a-z]+$/);
    expect(exampleValue({ anyOf: [{ type: "null" }, { type: "array", items: { enum: ["*", "a"] }, minItems: 2 }] }, schemas)).toEqual(["a", "a"]);
  });
});
