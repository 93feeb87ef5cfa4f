"use client";

import type { oas31 } from "zod-openapi";
import { MethodBadge, OperationView, operationAnchor, type Method, type OperationEntry } from "./operation-view";
import { Fields, Prose, schemaAnchor } from "./schema-view";

const METHODS: Method[] = ["get", "post", "put", "patch", "delete"];

/** Operations grouped by their first tag, in document order. */
function byTag(document: oas31.OpenAPIObject): [string, OperationEntry[]][] {
  const groups = new Map<string, OperationEntry[]>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item?.[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? "Other";
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push({ method, path, operation });
    }
  }
  return [...groups.entries()];
}

// The `tag/<slug>` form is what deprecation `Link` headers point at (e.g. /reference#tag/subscription-change-requests).
const tagAnchor = (tag: string) => `tag/${tag.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")}`;

/**
 * The API reference, rendered from the OpenAPI document: operations by tag, their parameters,
 * bodies and answers, then every named schema. Nothing is fetched from elsewhere.
 *
 * A client component on purpose, though it has no state: the server still renders all of its
 * HTML, but React's inline payload then carries the compact document (its props) instead of
 * the whole rendered tree, which was twice the size of the HTML itself (3.1 MB → see
 * docs/performance.md). Below the fold, sections skip layout and paint until scrolled to
 * (`content-visibility: auto`), so the first render costs one screen, not the whole document.
 */
export function ReferencePage({ document }: { document: oas31.OpenAPIObject }) {
  const groups = byTag(document);
  const server = document.servers?.[0]?.url ?? "/api";
  const schemas = Object.entries(document.components?.schemas ?? {});
  return (
    <div className="mx-auto flex max-w-7xl gap-6 px-4 py-6">
      <nav aria-label="Operations" className="sticky top-0 hidden max-h-screen w-72 shrink-0 overflow-y-auto py-2 text-sm lg:block">
        {groups.map(([tag, entries]) => (
          <div key={tag} className="mb-3">
            <a href={`#${tagAnchor(tag)}`} className="font-semibold text-slate-900 hover:underline">
              {tag}
            </a>
            <ul className="mt-1 space-y-0.5">
              {entries.map((entry) => (
                <li key={operationAnchor(entry)}>
                  <a href={`#${operationAnchor(entry)}`} className="flex items-center gap-2 rounded px-1 py-0.5 text-slate-700 hover:bg-slate-100">
                    <MethodBadge method={entry.method} />
                    <span className="truncate" title={entry.operation.summary}>
                      {entry.operation.summary}
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          </div>
        ))}
        <a href="#schemas" className="font-semibold text-slate-900 hover:underline">
          Schemas
        </a>
      </nav>
      <main className="min-w-0 flex-1 space-y-8">
        <header>
          <h1 className="text-2xl font-semibold">{document.info.title}</h1>
          <p className="text-sm text-slate-500">Version {document.info.version} · OpenAPI {document.openapi}</p>
          <Prose text={document.info.description} className="mt-2 max-w-3xl" />
          <p className="mt-2 text-sm">
            Base URL <code className="font-mono">{server}</code> ·{" "}
            <a href="/api/openapi.json" className="text-indigo-700 hover:underline">
              Download the OpenAPI document
            </a>
          </p>
        </header>
        {groups.map(([tag, entries]) => (
          <section key={tag} aria-labelledby={tagAnchor(tag)} className="space-y-3">
            <h2 id={tagAnchor(tag)} className="scroll-mt-4 text-lg font-semibold">
              {tag}
            </h2>
            {entries.map((entry) => (
              <OperationView key={operationAnchor(entry)} entry={entry} server={server} />
            ))}
          </section>
        ))}
        <section aria-labelledby="schemas" className="space-y-3">
          <h2 id="schemas" className="scroll-mt-4 text-lg font-semibold">
            Schemas
          </h2>
          {schemas.map(([name, schema]) => (
            <article key={name} id={schemaAnchor(name)} className="scroll-mt-4 rounded-lg [contain-intrinsic-size:auto_160px] [content-visibility:auto] border border-slate-200 bg-white p-4 shadow-sm">
              <h3 className="font-mono text-base font-semibold">{name}</h3>
              <Prose text={"description" in schema ? schema.description : undefined} />
              <Fields schema={schema} />
            </article>
          ))}
        </section>
      </main>
    </div>
  );
}
