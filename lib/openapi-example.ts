import type { oas31 } from "zod-openapi";

type Schema = oas31.SchemaObject | oas31.ReferenceObject;
type Components = Record<string, Schema>;

const isRef = (schema: Schema): schema is oas31.ReferenceObject => "$ref" in schema;

/**
 * An example value for a JSON Schema of the OpenAPI document, for the reference's curl examples:
 * the schema's own `example` wherever one is given (the zod `.meta({ example })`, so a schema
 * with rules between fields carries a whole valid example), otherwise a value built from its type
 * and bounds. Objects get their required fields; one with none gets its first field that has an
 * example, so an update shows something to change. tests/unit/openapi-example.test.ts checks every
 * request body's example against the operation's own zod schema.
 */
export function exampleValue(schema: Schema, components: Components, depth = 0): unknown {
  if (isRef(schema)) {
    const target = components[schema.$ref.split("/").pop() ?? ""];
    return target && depth < 8 ? exampleValue(target, components, depth + 1) : {};
  }
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum.find((value) => value !== "*") ?? schema.enum[0];
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants && variants.length > 0) {
    const chosen = variants.find((variant) => "$ref" in variant || variant.type !== "null") ?? variants[0]!;
    return exampleValue(chosen, components, depth + 1);
  }
  if (schema.allOf?.[0]) return exampleValue(schema.allOf[0], components, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object":
      return objectExample(schema, components, depth);
    case "array": {
      const item = schema.items ? exampleValue(schema.items, components, depth + 1) : "example";
      return Array.from({ length: Math.max(schema.minItems ?? 1, 1) }, () => item);
    }
    case "integer":
    case "number":
      return numberExample(schema);
    case "boolean":
      return true;
    case "null":
      return null;
    case "string":
      return stringExample(schema);
    default:
      return schema.properties ? objectExample(schema, components, depth) : {};
  }
}

function objectExample(schema: oas31.SchemaObject, components: Components, depth: number): Record<string, unknown> {
  const properties = schema.properties ?? {};
  let names = schema.required ?? [];
  if (names.length === 0) {
    const withExample = Object.entries(properties).find(([, property]) => !isRef(property) && property.example !== undefined);
    names = withExample ? [withExample[0]] : [];
  }
  return Object.fromEntries(
    names.flatMap((name) => {
      const property = properties[name];
      return property ? [[name, exampleValue(property, components, depth + 1)]] : [];
    }),
  );
}

function numberExample(schema: oas31.SchemaObject): number {
  if (typeof schema.minimum === "number") return Math.max(schema.minimum, Math.min(1, schema.maximum ?? 1));
  if (typeof schema.exclusiveMinimum === "number") return schema.exclusiveMinimum + 1;
  return 1;
}

function stringExample(schema: oas31.SchemaObject): string {
  switch (schema.format) {
    case "email":
      return "jenny@example.com";
    case "date-time":
      return "2030-01-01T00:00:00.000Z";
    case "uri":
    case "url":
      return "https://example.com/";
  }
  // An id reference names its prefix in its description ("The product (`prod_…`) …").
  const prefix = schema.description?.match(/`([a-z]+)_…`/)?.[1];
  if (prefix) return `${prefix}_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5`;
  const text = "example";
  return text.padEnd(Math.max(schema.minLength ?? 0, 0), "x").slice(0, schema.maxLength ?? Infinity);
}
