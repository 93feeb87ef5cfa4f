"use client";

import { useEffect, useSyncExternalStore } from "react";
import type { oas31 } from "zod-openapi";
import { MethodBadge, OperationView, operationAnchor, type Method, type OperationEntry } from "./operation-view";
import { Fields, Prose, schemaAnchor, type Schema } from "./schema-view";
import { operationPath } from "@/lib/operation-paths";

const METHODS: Method[] = ["get", "post", "put", "patch", "delete"];
// lib/server/openapi.ts documents an operation's path without the account segment under this suffix.
const UNSCOPED_SUFFIX = "ForTokenAccount";

/**
 * Operations grouped by their first tag, in document order, once each: the document lists an
 * operation served on both paths twice (the account-scoped one and `…ForTokenAccount`); here it is
 * one entry on the shorter path, noting the account-scoped one.
 */
function byTag(document: oas31.OpenAPIObject): [string, OperationEntry[]][] {
  const all: OperationEntry[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item?.[method];
      if (operation) all.push({ method, path, operation });
    }
  }
  const unscoped = new Map(
    all.filter((entry) => entry.operation.operationId?.endsWith(UNSCOPED_SUFFIX)).map((entry) => [entry.operation.operationId, entry]),
  );
  const groups = new Map<string, OperationEntry[]>();
  for (const entry of all) {
    if (unscoped.has(entry.operation.operationId)) continue;
    const short = unscoped.get(`${entry.operation.operationId}${UNSCOPED_SUFFIX}`);
    const shown: OperationEntry = short ? { ...entry, path: short.path, scopedPath: entry.path } : entry;
    const tag = entry.operation.tags?.[0] ?? "Other";
    if (!groups.has(tag)) groups.set(tag, []);
    groups.get(tag)!.push(shown);
  }
  return [...groups.entries()];
}

// The `tag/<slug>` form is what deprecation `Link` headers point at (e.g. /reference#tag/subscription-change-requests).
const tagAnchor = (tag: string) => `tag/${tag.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")}`;

const noSubscription = () => () => {};

/**
 * The origin the page is served from, for runnable curl examples. The page is prerendered once
 * at build time, where no origin is known: the HTML says `/api` and hydration fills in the origin.
 */
function useServer(documentServer: string): string {
  const origin = useSyncExternalStore(noSubscription, () => window.location.origin, () => "");
  return /^https?:/.test(documentServer) ? documentServer : `${origin}${documentServer}`;
}

/** Opens the collapsed sections holding the linked operation, tag or schema (links and deprecation `Link`s). */
function useOpenTarget() {
  useEffect(() => {
    function open() {
      const id = decodeURIComponent(window.location.hash.slice(1));
      const target = id ? window.document.getElementById(id) : null;
      if (!target) return;
      for (let node: HTMLElement | null = target; node; node = node.parentElement) {
        if (node instanceof HTMLDetailsElement) node.open = true;
      }
      target.scrollIntoView();
    }
    open();
    window.addEventListener("hashchange", open);
    return () => window.removeEventListener("hashchange", open);
  }, []);
}

/**
 * The API reference, rendered from the OpenAPI document: a tag index, then one collapsed section
 * per tag (`<details>`) with its operations, their parameters, bodies, answers and a runnable curl
 * example, then every named schema, collapsed too. Nothing is fetched from elsewhere.
 *
 * A client component on purpose: the server still renders all of its HTML, but React's inline
 * payload then carries the compact document (its props) instead of the whole rendered tree, which
 * was twice the size of the HTML itself (3.1 MB → see docs/performance.md). Collapsed sections
 * cost no layout until opened, so the page is a screen or two tall, not 110,000 px.
 */
export function ReferencePage({ document }: { document: oas31.OpenAPIObject }) {
  const groups = byTag(document);
  const server = useServer(document.servers?.[0]?.url ?? "/api");
  useOpenTarget();
  const components: Record<string, Schema> = document.components?.schemas ?? {};
  const schemas = Object.entries(components);
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
      <main className="min-w-0 flex-1 space-y-4">
        <header>
          <h1 className="text-2xl font-semibold">{document.info.title}</h1>
          <p className="text-sm text-slate-500">Version {document.info.version} · OpenAPI {document.openapi}</p>
          <Prose text={document.info.description} className="mt-2 max-w-3xl" />
          <p className="mt-2 text-sm">
            Base URL <code className="break-all font-mono" data-testid="base-url">{server}</code> ·{" "}
            <a href={operationPath("getOpenApiDocument")} className="text-indigo-700 hover:underline">
              Download the OpenAPI document
            </a>
          </p>
          <nav aria-label="Tags" className="mt-3">
            <ul className="flex flex-wrap gap-x-3 gap-y-1 text-sm">
              {groups.map(([tag, entries]) => (
                <li key={tag}>
                  <a href={`#${tagAnchor(tag)}`} className="text-indigo-700 hover:underline">
                    {tag}
                  </a>{" "}
                  <span className="text-xs text-slate-500">{entries.length}</span>
                </li>
              ))}
              <li>
                <a href="#schemas" className="text-indigo-700 hover:underline">
                  Schemas
                </a>
              </li>
            </ul>
          </nav>
        </header>
        {groups.map(([tag, entries]) => (
          <details key={tag} id={tagAnchor(tag)} className="group scroll-mt-4 rounded-lg border border-slate-200 bg-white" data-testid="tag-section">
            <summary className="flex cursor-pointer items-baseline gap-2 px-4 py-2">
              <h2 className="text-lg font-semibold">{tag}</h2>
              <span className="text-sm text-slate-500">
                {entries.length} operation{entries.length === 1 ? "" : "s"}
              </span>
            </summary>
            <div className="space-y-3 border-t border-slate-200 bg-slate-50 p-3">
              {entries.map((entry) => (
                <OperationView key={operationAnchor(entry)} entry={entry} server={server} components={components} />
              ))}
            </div>
          </details>
        ))}
        <details id="schemas" className="scroll-mt-4 rounded-lg border border-slate-200 bg-white">
          <summary className="flex cursor-pointer items-baseline gap-2 px-4 py-2">
            <h2 className="text-lg font-semibold">Schemas</h2>
            <span className="text-sm text-slate-500">{schemas.length}</span>
          </summary>
          <div className="space-y-3 border-t border-slate-200 bg-slate-50 p-3">
            {schemas.map(([name, schema]) => (
              <article key={name} id={schemaAnchor(name)} className="scroll-mt-4 rounded-lg [contain-intrinsic-size:auto_160px] [content-visibility:auto] border border-slate-200 bg-white p-4 shadow-sm">
                <h3 className="font-mono text-base font-semibold">{name}</h3>
                <Prose text={"description" in schema ? schema.description : undefined} />
                <Fields schema={schema} />
              </article>
            ))}
          </div>
        </details>
      </main>
    </div>
  );
}
