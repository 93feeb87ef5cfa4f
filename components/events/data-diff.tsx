import type { ReactNode } from "react";
import { formatJson } from "./format";

type State = Record<string, unknown>;

/** Structural equality of JSON values (what the API sends), independent of key order. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  const left = a as State;
  const right = b as State;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => key in right && sameJson(left[key], right[key]));
}

/**
 * The entity before and after the change, side by side, with the changed top-level fields marked
 * in both panes. Both panes list the same fields in the same order so rows line up when compared.
 */
export function DataDiff({ before, after }: { before: State | null; after: State }) {
  const keys = [...Object.keys(after), ...Object.keys(before ?? {}).filter((key) => !(key in after))];
  const changed = new Set(before === null ? [] : keys.filter((key) => !sameJson(before[key], after[key])));

  return (
    <div className="space-y-3">
      <p className="text-sm text-slate-600" aria-live="polite">
        {before === null
          ? "This event created the entity: there is no previous state (previous_data is null)."
          : changed.size === 0
            ? "No top-level field changed."
            : `${changed.size} field${changed.size === 1 ? "" : "s"} changed: ${[...changed].join(", ")}.`}
      </p>
      <div className="grid gap-4 md:grid-cols-2">
        <Pane id="diff-before" title="Before (previous_data)">
          {before === null ? (
            <p className="p-3 text-sm text-slate-600">null: no previous state, this is a create event.</p>
          ) : (
            <Rows keys={keys} state={before} changed={changed} />
          )}
        </Pane>
        <Pane id="diff-after" title="After (data)">
          <Rows keys={keys} state={after} changed={changed} />
        </Pane>
      </div>
    </div>
  );
}

function Pane({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="min-w-0 rounded border border-slate-200">
      <h3 id={id} className="border-b border-slate-200 bg-slate-50 px-3 py-2 text-sm font-semibold">
        {title}
      </h3>
      {children}
    </section>
  );
}

function Rows({ keys, state, changed }: { keys: string[]; state: State; changed: Set<string> }) {
  if (keys.length === 0) return <p className="p-3 text-sm text-slate-600">No fields.</p>;
  return (
    <dl className="divide-y divide-slate-100 text-sm">
      {keys.map((key) => {
        const isChanged = changed.has(key);
        return (
          <div
            key={key}
            data-field={key}
            data-changed={isChanged ? "true" : undefined}
            className={`px-3 py-1.5 ${isChanged ? "border-l-4 border-l-amber-500 bg-amber-50" : "border-l-4 border-l-transparent"}`}
          >
            <dt className="flex items-center gap-2 font-mono text-xs text-slate-600">
              {key}
              {isChanged && (
                <span className="rounded bg-amber-200 px-1.5 font-sans text-[11px] font-semibold text-amber-900">changed</span>
              )}
            </dt>
            <dd className="min-w-0">
              <pre className="whitespace-pre-wrap break-all font-mono text-xs text-slate-900">
                {key in state ? formatJson(state[key]) : "(absent)"}
              </pre>
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
