import type { ReactNode } from "react";
import type { oas31 } from "zod-openapi";

/**
 * Pieces of the API reference, generated from the same OpenAPI document `/api/openapi.json`
 * serves. Pure functions of it: rendered on the server, hydrated without a request.
 */

export type Schema = oas31.SchemaObject | oas31.ReferenceObject;

const isRef = (schema: Schema): schema is oas31.ReferenceObject => "$ref" in schema;
export const refName = (ref: string) => ref.split("/").pop() ?? ref;
export const schemaAnchor = (name: string) => `schema-${name}`;

/** Inline markdown as the document uses it: `code` spans only. */
export function Prose({ text, className = "" }: { text?: string; className?: string }) {
  if (!text) return null;
  const parts = text.split(/(`[^`]+`)/g);
  return (
    <p className={`text-sm text-slate-700 ${className}`}>
      {parts.map((part, i) =>
        part.startsWith("`") && part.endsWith("`") && part.length > 1 ? (
          <code key={i} className="rounded bg-slate-100 px-1 font-mono text-[0.8rem]">
            {part.slice(1, -1)}
          </code>
        ) : (
          part
        ),
      )}
    </p>
  );
}

/** A one-line type, e.g. `string | null`, `array of Customer`, `"a" | "b"`. */
export function TypeLabel({ schema }: { schema: Schema }): ReactNode {
  if (isRef(schema)) {
    const name = refName(schema.$ref);
    return (
      <a href={`#${schemaAnchor(name)}`} className="font-mono text-indigo-700 hover:underline">
        {name}
      </a>
    );
  }
  if (schema.const !== undefined) return <code className="font-mono">{JSON.stringify(schema.const)}</code>;
  if (schema.enum) return <span className="font-mono">{schema.enum.map((value) => JSON.stringify(value)).join(" | ")}</span>;
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants) {
    return (
      <>
        {variants.map((variant, i) => (
          <span key={i}>
            {i > 0 && " | "}
            <TypeLabel schema={variant} />
          </span>
        ))}
      </>
    );
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.includes("array") && schema.items) {
    return (
      <>
        array of <TypeLabel schema={schema.items} />
        {types.includes("null") ? " | null" : ""}
      </>
    );
  }
  const label = types.length ? types.join(" | ") : schema.allOf ? "all of" : "any";
  return (
    <span className="font-mono">
      {label}
      {schema.format ? ` (${schema.format})` : ""}
    </span>
  );
}

function constraints(schema: oas31.SchemaObject): string[] {
  const out: string[] = [];
  if (schema.minLength !== undefined) out.push(`min length ${schema.minLength}`);
  if (schema.maxLength !== undefined) out.push(`max length ${schema.maxLength}`);
  if (schema.minimum !== undefined) out.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) out.push(`≤ ${schema.maximum}`);
  if (schema.minItems !== undefined) out.push(`min ${schema.minItems} items`);
  if (schema.maxItems !== undefined) out.push(`max ${schema.maxItems} items`);
  if (schema.default !== undefined) out.push(`default ${JSON.stringify(schema.default)}`);
  // Long generated patterns (dates) say less than the format does.
  if (schema.pattern && schema.pattern.length <= 40 && !schema.format) out.push(`pattern ${schema.pattern}`);
  return out;
}

/** The inline object (if any) a schema nests: its own properties, or those of its array items. */
function nestedObject(schema: Schema): oas31.SchemaObject | undefined {
  if (isRef(schema)) return undefined;
  if (schema.properties) return schema;
  if (schema.items && !isRef(schema.items) && schema.items.properties) return schema.items;
  return undefined;
}

/** The fields of an object schema as a definition list; nested inline objects are indented. */
export function Fields({ schema, depth = 0 }: { schema: Schema; depth?: number }) {
  if (isRef(schema)) {
    return (
      <p className="text-sm">
        <TypeLabel schema={schema} />
      </p>
    );
  }
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const names = Object.keys(properties);
  if (names.length === 0) {
    return (
      <p className="text-sm">
        <TypeLabel schema={schema} />
      </p>
    );
  }
  return (
    <dl className={`divide-y divide-slate-100 ${depth > 0 ? "ml-4 border-l border-slate-200 pl-3" : ""}`}>
      {names.map((name) => {
        const property = properties[name]!;
        const own = isRef(property) ? undefined : property;
        const nested = depth < 4 ? nestedObject(property) : undefined;
        const notes = own ? constraints(own) : [];
        return (
          <div key={name} className="py-2">
            <dt className="flex flex-wrap items-baseline gap-x-2 text-sm">
              <code className="font-mono font-semibold text-slate-900">{name}</code>
              <span className="text-xs text-slate-600">
                <TypeLabel schema={property} />
              </span>
              {required.has(name) ? (
                <span className="text-xs font-medium text-red-700">required</span>
              ) : (
                <span className="text-xs text-slate-500">optional</span>
              )}
            </dt>
            <dd>
              <Prose text={own?.description ?? (property as { description?: string }).description} />
              {notes.length > 0 && <p className="text-xs text-slate-500">{notes.join(" · ")}</p>}
              {own?.example !== undefined && (
                <p className="text-xs text-slate-500">
                  Example: <code className="font-mono">{JSON.stringify(own.example)}</code>
                </p>
              )}
              {nested && <Fields schema={nested} depth={depth + 1} />}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
