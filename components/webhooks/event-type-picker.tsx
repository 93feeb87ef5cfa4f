"use client";

import { useEffect, useId, useRef } from "react";
import { EVENT_CATALOGUE } from "@/lib/events/catalogue";
import { ALL_EVENTS } from "./format";

/**
 * Chooses event types, grouped as in the catalogue. `value` is what the API takes: ["*"] for all
 * events, else the chosen types. Types the catalogue no longer lists are kept as they are.
 */
export function EventTypePicker({
  value,
  onChange,
  error,
  legend = "Events",
  disabled = false,
}: {
  value: readonly string[];
  onChange: (value: string[]) => void;
  error?: string;
  legend?: string;
  disabled?: boolean;
}) {
  const errorId = useId();
  const allHintId = useId();
  const all = value.includes(ALL_EVENTS);
  const chosen = new Set(value);

  const setTypes = (types: readonly string[], on: boolean) => {
    const next = new Set(value);
    for (const type of types) {
      if (on) next.add(type);
      else next.delete(type);
    }
    onChange([...next]);
  };

  return (
    <fieldset aria-describedby={error ? errorId : undefined} className="min-w-0 text-sm" disabled={disabled}>
      <legend className="mb-1 font-medium text-slate-800">{legend}</legend>
      <div className="mb-2 flex flex-wrap items-center gap-x-2">
        <label className="flex items-center gap-2 font-medium">
          <input
            type="checkbox"
            className="size-4"
            checked={all}
            aria-describedby={allHintId}
            onChange={(event) => onChange(event.target.checked ? [ALL_EVENTS] : [])}
          />
          All events
        </label>
        <span id={allHintId} className="text-slate-500">
          (including types added later)
        </span>
      </div>
      <div className="grid gap-2 sm:grid-cols-2 lg:grid-cols-3">
        {EVENT_CATALOGUE.map((group) => {
          const selected = group.types.filter((type) => chosen.has(type)).length;
          return (
            // "All events" covers every group, so the groups are shown as chosen and locked.
            <fieldset key={group.group} disabled={all} className="min-w-0 rounded border border-slate-200 px-3 pb-2 disabled:opacity-60">
              <legend className="px-1">
                <label className="flex items-center gap-2 font-medium">
                  <GroupCheckbox
                    checked={all || selected === group.types.length}
                    indeterminate={!all && selected > 0 && selected < group.types.length}
                    onChange={(on) => setTypes(group.types, on)}
                  />
                  {group.group}
                </label>
              </legend>
              <ul className="space-y-1">
                {group.types.map((type) => (
                  <li key={type}>
                    <label className="flex items-start gap-2">
                      <input
                        type="checkbox"
                        className="mt-0.5 size-4 shrink-0"
                        checked={all || chosen.has(type)}
                        onChange={(event) => setTypes([type], event.target.checked)}
                      />
                      <span className="break-all font-mono text-xs leading-5">{type}</span>
                    </label>
                  </li>
                ))}
              </ul>
            </fieldset>
          );
        })}
      </div>
      {error && (
        <p id={errorId} role="alert" className="mt-1 text-xs text-red-700">
          {error}
        </p>
      )}
    </fieldset>
  );
}

/** `indeterminate` exists only as a DOM property, so it is set through a ref. */
function GroupCheckbox({
  checked,
  indeterminate,
  onChange,
}: {
  checked: boolean;
  indeterminate: boolean;
  onChange: (checked: boolean) => void;
}) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = indeterminate;
  }, [indeterminate]);
  return (
    <input
      ref={ref}
      type="checkbox"
      className="size-4"
      checked={checked}
      aria-checked={indeterminate ? "mixed" : checked}
      onChange={(event) => onChange(event.target.checked)}
    />
  );
}
