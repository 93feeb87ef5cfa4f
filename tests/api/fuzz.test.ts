import { eq, sql } from "drizzle-orm";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { events } from "@/db/schema";
import { apiBaseUrl, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";

/**
 * Requests generated from the OpenAPI document: bodies, query strings and path parameters that
 * follow each operation's schemas, mixed with hostile values (NUL, lone surrogates, huge and
 * odd numbers, unknown fields, wrong types, nesting up to 10,000 levels). Whatever is sent: never a 5xx, every error is a
 * problem body with a request id, and a refused request changes nothing (no event carries its
 * request id: every state change emits one).
 */

type Schema = Json;
const RUNS_PER_OPERATION = 6;
/**
 * The whole suite's budget: once it is spent, each operation left gets one request instead of
 * RUNS_PER_OPERATION, so a slow machine still sends every operation something.
 */
const BUDGET_MS = 45_000;

const HOSTILE_STRINGS = ["\u0000", "a\u0000b", "\ud800", "x\udc00y", "%00", "%E0%A4%A", "😀", "' or 1=1 --", "x".repeat(5000), "", " ", "\n", "../../etc/passwd"];

function hostileString(): fc.Arbitrary<string> {
  return fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), fc.string({ unit: "binary", maxLength: 20 }));
}

/**
 * Arrays or objects nested `depth` levels, written as JSON text by `encode` (JSON.stringify and
 * fast-check's printer recurse, and 10,000 levels overflow them).
 */
class Nested {
  constructor(
    readonly depth: number,
    readonly asObject: boolean,
  ) {}
  json(): string {
    return this.asObject ? `${'{"a":'.repeat(this.depth)}"\\u0000"${"}".repeat(this.depth)}` : `${"[".repeat(this.depth)}"\\u0000"${"]".repeat(this.depth)}`;
  }
}

/** JSON.stringify, with each Nested written out in place. */
function encode(value: unknown): string {
  const nested: Nested[] = [];
  const text = JSON.stringify(value, (_key, item: unknown) => (item instanceof Nested ? `\u0001nested${nested.push(item) - 1}` : item));
  return text.replace(/"\\u0001nested(\d+)"/g, (_match, index: string) => nested[Number(index)]!.json());
}

function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    hostileString(),
    fc.tuple(fc.constantFrom(63, 64, 65, 2_000, 10_000), fc.boolean()).map(([depth, asObject]) => new Nested(depth, asObject)),
    fc.constantFrom(-1, 0, 1.5, 2 ** 53, -(2 ** 63), 1e308, true, null),
    fc.constant([]),
    fc.constant({ nested: { deeper: "\u0000" } }),
  );
}

function resolve(document: Json, schema: Schema): Schema {
  let current = schema;
  for (let depth = 0; current?.$ref && depth < 10; depth++) {
    current = current.$ref.split("/").slice(1).reduce((node: Json, key: string) => node[key], document);
  }
  return current ?? {};
}

/** A fast-check arbitrary for a JSON schema, with a hostile value in place of any field now and then. */
function arbitraryOf(document: Json, raw: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(document, raw);
  const valid = validArbitrary(document, schema, depth);
  return fc.oneof({ arbitrary: valid, weight: 5 }, { arbitrary: hostileValue(), weight: 1 });
}

function validArbitrary(document: Json, schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if (depth > 4) return fc.constant(null);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants) && variants.length > 0) return fc.oneof(...variants.map((variant: Schema) => arbitraryOf(document, variant, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) return arbitraryOf(document, schema.allOf[0], depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  switch (type) {
    case "string":
      if (schema.format === "email") return fc.emailAddress();
      if (schema.format === "date-time") return fc.date({ noInvalidDate: true, min: new Date(2000, 0, 1), max: new Date(2100, 0, 1) }).map((d) => d.toISOString());
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 30, 30) });
    case "integer":
      return fc.integer({ min: Math.max(schema.minimum ?? -1000, Number.MIN_SAFE_INTEGER), max: Math.min(schema.maximum ?? 100_000, Number.MAX_SAFE_INTEGER) });
    case "number":
      return fc.double({ noNaN: true, min: schema.minimum ?? -1000, max: schema.maximum ?? 100_000 });
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(arbitraryOf(document, schema.items ?? {}, depth + 1), { maxLength: 3 });
    case "object":
    default: {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) record[name] = arbitraryOf(document, property, depth + 1);
      const required: string[] = schema.required ?? [];
      const known = fc.record(record, { requiredKeys: required.filter((name) => name in record) });
      const extra = schema.additionalProperties ? fc.dictionary(hostileString(), hostileValue(), { maxKeys: 2 }) : fc.constant({});
      return fc.tuple(known, extra, fc.boolean()).map(([fields, more, dropRequired]) => {
        const value: Record<string, unknown> = { ...more, ...fields };
        // Sometimes a required field goes missing.
        if (dropRequired && required.length > 0) delete value[required[0]!];
        return value;
      });
    }
  }
}

/** Percent-encodes what encodeURIComponent refuses (a lone surrogate) as invalid UTF-8 bytes. */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return "%ED%A0%80";
  }
}

type FuzzOperation = { method: string; path: string; operation: Json };

function operationsOf(document: Json): FuzzOperation[] {
  const result: FuzzOperation[] = [];
  for (const [path, item] of Object.entries<Json>(document.paths)) {
    // The unscoped form of each operation (the scoped one shares its handler); not the platform's.
    if (path.includes("{account_id}") || path.startsWith("/platform") || path.startsWith("/operator")) continue;
    for (const [method, operation] of Object.entries<Json>(item)) result.push({ method: method.toUpperCase(), path, operation });
  }
  return result;
}

async function eventsOf(requestId: string): Promise<number> {
  const db = await getDb();
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(events).where(eq(events.correlationId, requestId));
  return row!.count;
}

describe("OpenAPI-driven fuzzing", () => {
  it("never answers 5xx, answers problems with request ids, and changes nothing on refusal", { timeout: 120_000 }, async () => {
    const document = await (await fetch(`${apiBaseUrl()}/openapi.json`)).json();
    const merchant: Merchant = await newMerchant();
    // A real object of each kind the paths name, so that some requests reach the domain.
    const customer = (await merchant.client.post("/customers", { email: "fuzz@example.com" })).body.id as string;
    const product = (await merchant.client.post("/products", { name: "Fuzz" })).body.id as string;
    const known: Record<string, string> = { customer_id: customer, product_id: product };

    const started = Date.now();
    const failures: string[] = [];
    let sent = 0;
    const operations = operationsOf(document);
    for (const { method, path, operation } of operations) {
      const runs = Date.now() - started > BUDGET_MS ? 1 : RUNS_PER_OPERATION;
      const pathParams: string[] = (operation.parameters ?? []).filter((p: Json) => p.in === "path").map((p: Json) => p.name);
      const queryParams: Json[] = (operation.parameters ?? []).filter((p: Json) => p.in === "query");
      const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
      const request = fc.record({
        params: fc.tuple(...pathParams.map((name) => fc.oneof(fc.constant(known[name] ?? "obj_prod_nope"), hostileString()))),
        query: fc.record(Object.fromEntries(queryParams.map((p: Json) => [p.name, arbitraryOf(document, p.schema ?? {})])), { requiredKeys: [] }),
        body: bodySchema ? arbitraryOf(document, bodySchema) : fc.constant(undefined),
      });
      await fc.assert(
        fc.asyncProperty(request, async ({ params, query, body }) => {
          let url = path;
          pathParams.forEach((name, index) => (url = url.replace(`{${name}}`, encodeSegment(String(params[index])))));
          const search = new URLSearchParams();
          for (const [name, value] of Object.entries(query)) {
            try {
              search.append(name, typeof value === "string" ? value : JSON.stringify(value));
            } catch {
              search.append(name, "\ufffd");
            }
          }
          const qs = search.toString();
          const response = await fetch(`${apiBaseUrl()}${url}${qs ? `?${qs}` : ""}`, {
            method,
            headers: { Authorization: `Bearer ${merchant.secret.token}`, ...(body !== undefined ? { "Content-Type": "application/json" } : {}) },
            body: body !== undefined ? encode(body) : undefined,
          });
          sent++;
          const text = await response.text();
          const where = `${method} ${url}${qs ? `?${qs}` : ""} ${body === undefined ? "" : encode(body).slice(0, 300)} → ${response.status} ${text.slice(0, 300)}`;
          if (response.status >= 500) failures.push(where);
          if (response.status >= 400) {
            expect(response.headers.get("content-type"), where).toBe("application/problem+json");
            const problem = JSON.parse(text);
            expect(problem, where).toMatchObject({ status: response.status, request_id: expect.stringMatching(/^req_/) });
            expect(await eventsOf(problem.request_id), where).toBe(0);
          }
        }),
        { numRuns: runs, seed: 20261123, endOnFailure: true },
      );
    }
    expect(failures, failures.join("\n")).toEqual([]);
    // The budget is a ceiling, not the plan: the run covers the document, every operation at least once.
    expect(operations.length).toBeGreaterThan(100);
    expect(sent).toBeGreaterThanOrEqual(operations.length);
  });
});
