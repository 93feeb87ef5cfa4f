"use client";

import { useId, useState, useSyncExternalStore, type FormEvent, type ReactNode } from "react";
import { ApiError, dashboardSubmit, type CallInput, type CallOutput, type OperationId } from "@/components/api-client";
import { useApiMutation } from "@/components/api-mutation";
import { useCan } from "@/components/dashboard/role";
import { Button, ErrorBox, Field, inputClass } from "@/components/ui";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { currencyExponent, formatAtoms, parseAmount } from "@/lib/money";
import { plainMessage } from "./form-values";

export { plainMessage, toAtoms } from "./form-values";

export type FormField = {
  name: string;
  label: string;
  kind?: "text" | "email" | "number" | "select" | "money";
  options?: readonly { value: string; label: string }[];
  required?: boolean;
  hint?: string;
  initial?: string;
  /** API error fields that belong beside this one (e.g. `recurring.interval`). */
  errorFields?: readonly string[];
  /** A money field's currency: a code, or the name of the field that holds it. */
  currency?: string | { field: string };
  /** Shown (and validated, and given its errors) only while this holds, e.g. for one mode of the form. */
  when?: (values: Record<string, string>) => boolean;
  /** Beside the input, outside its label (e.g. an email type's Preview button); a button there must be `type="button"`. */
  aside?: ReactNode;
};

/** What `toBody` gets besides the values: the browser's locale, for money typed in it. */
export type FormContext = { locale: string };

const noSubscription = () => () => {};
/** The browser's language ("de-DE"); "en" while rendering on the server. */
export function useBrowserLocale(): string {
  return useSyncExternalStore(noSubscription, () => navigator.language || "en", () => "en");
}

/**
 * A form that calls one API operation. Field problems from the answer (`errors[].field`) show
 * beside their field in plain words; anything else shows above the button.
 */
export function ApiForm<Id extends OperationId>({
  fields,
  submitLabel,
  operation,
  params,
  toBody,
  onDone,
  invalidate = [],
  label,
  confirm,
  variant = "primary",
  adjust,
  confirmation,
  summary,
  extra,
  onValues,
  fieldName,
}: {
  fields: FormField[];
  submitLabel: string;
  /** The API operation the form calls, with its path (and query) parameters. */
  operation: Id;
  params: Omit<CallInput<Id>, "body">;
  toBody: (values: Record<string, string>, context: FormContext) => unknown;
  onDone?: (result: CallOutput<Id>) => void;
  invalidate?: readonly (readonly unknown[])[];
  label: string;
  /** For a destructive step: asked before the request goes out. */
  confirm?: { title: string; body: string; label: string };
  variant?: "primary" | "danger";
  /** A field changed: the values to use instead (e.g. a picked price sets the currency). */
  adjust?: (changed: string, values: Record<string, string>) => Record<string, string>;
  /** After success: this message shows and the form starts over (for forms that stay on the page). */
  confirmation?: (result: CallOutput<Id>) => ReactNode;
  /** Live figures of the values as typed, above the button; `blocked` (why) disables it. The API stays the authority. */
  summary?: (values: Record<string, string>, context: FormContext) => { content: ReactNode; blocked: string | null };
  /** Inputs beyond `fields` (e.g. a table of lines), kept in the same values: `set` changes several at once. */
  extra?: (values: Record<string, string>, set: (patch: Record<string, string>) => void) => ReactNode;
  /** The values as they change (and start over), for a parent that fetches something from them. */
  onValues?: (values: Record<string, string>) => void;
  /** An API field no form field shows (e.g. `lines.0.quantity`) in words, before its message; the field itself without it. */
  fieldName?: (apiField: string, values: Record<string, string>) => string | undefined;
}) {
  // Billing objects change for admins and owners only (lib/auth/roles.ts); the server checks too.
  const allowed = useCan("admin");
  const locale = useBrowserLocale();
  const blockedId = useId();
  const [confirmed, setConfirmed] = useState<ReactNode>(null);
  const [moneyErrors, setMoneyErrors] = useState<Record<string, string>>({});
  const [confirming, setConfirming] = useState(false);
  const initialValues = () => Object.fromEntries(fields.map((field) => [field.name, field.initial ?? field.options?.[0]?.value ?? ""]));
  const [values, setValuesState] = useState<Record<string, string>>(initialValues);
  const setValues = (next: Record<string, string>) => {
    setValuesState(next);
    onValues?.(next);
  };
  const change = (name: string, value: string) => {
    const next = { ...values, [name]: value };
    setValues(adjust ? adjust(name, next) : next);
    setConfirmed(null);
  };
  const set = (patch: Record<string, string>) => {
    setValues({ ...values, ...patch });
    setConfirmed(null);
  };
  const shown = fields.filter((field) => field.when?.(values) ?? true);
  const currencyOf = (field: FormField) =>
    typeof field.currency === "object" ? (values[field.currency.field] ?? "") : (field.currency ?? "");
  const mutation = useApiMutation({
    call: () => dashboardSubmit(operation, params, toBody(values, { locale })),
    onSettled: () => setConfirming(false),
    refresh: invalidate,
    onSuccess: (result) => {
      if (confirmation) {
        setConfirmed(confirmation(result));
        setValues(initialValues());
      }
      onDone?.(result);
    },
  });

  const problems = mutation.error instanceof ApiError ? (mutation.error.problem.errors ?? []) : [];
  // A field that names the problem's path (itself or in `errorFields`) takes it; otherwise a problem
  // inside the object a field is named for (`currency_options.eur.unit_amount_atom`) belongs to it.
  const fieldOf = (apiField: string) =>
    shown.find((field) => field.name === apiField || field.errorFields?.includes(apiField))?.name ??
    shown.find((field) => apiField.startsWith(`${field.name}.`))?.name;
  const inline: Record<string, string> = {};
  for (const problem of problems) {
    const name = fieldOf(problem.field);
    if (name && !inline[name]) inline[name] = plainMessage(problem.message);
  }
  Object.assign(inline, moneyErrors);
  const unmatched = problems.filter((problem) => !fieldOf(problem.field));
  const showGeneral = mutation.error && (problems.length === 0 || unmatched.length > 0);
  const live = summary?.(values, { locale });

  function submit(event: FormEvent) {
    event.preventDefault();
    // Money that does not read as an amount of its currency is named beside its field, unsent.
    const refused = Object.fromEntries(
      shown.flatMap((field) => {
        const typed = values[field.name]?.trim();
        // An unknown currency is the API's to name, beside the currency field.
        if (field.kind !== "money" || !field.currency || !typed || currencyExponent(currencyOf(field)) === null) return [];
        const parsed = parseAmount(typed, currencyOf(field), locale);
        return parsed.ok ? [] : [[field.name, parsed.message]];
      }),
    );
    setMoneyErrors(refused);
    if (Object.keys(refused).length > 0) return;
    if (confirm) setConfirming(true);
    else mutation.mutate();
  }

  if (!allowed) return null;
  return (
    <form onSubmit={submit} aria-label={label} className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-2">
        {shown.map((field) => {
          const input = (
            <Field key={field.name} label={field.label} error={inline[field.name]} hint={field.kind === "money" && field.currency ? moneyHint(field, values[field.name] ?? "", currencyOf(field), locale) : field.hint}>
              {field.kind === "select" ? (
                <select
                  className={inputClass}
                  value={values[field.name]}
                  onChange={(event) => change(field.name, event.target.value)}
                >
                  {field.options?.map((option) => (
                    <option key={option.value} value={option.value}>
                      {option.label}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  className={inputClass}
                  type={field.kind === "email" ? "email" : "text"}
                  inputMode={field.kind === "number" || field.kind === "money" ? "decimal" : undefined}
                  required={field.required}
                  aria-invalid={inline[field.name] ? true : undefined}
                  value={values[field.name]}
                  onChange={(event) => change(field.name, event.target.value)}
                />
              )}
            </Field>
          );
          return field.aside ? (
            <div key={field.name} className="flex items-end gap-2">
              <div className="min-w-0 flex-1">{input}</div>
              {field.aside}
            </div>
          ) : (
            input
          );
        })}
      </div>
      {extra?.(values, set)}
      {showGeneral && (
        <ErrorBox
          error={
            unmatched.length > 0
              ? new Error(unmatched.map((problem) => `${fieldName?.(problem.field, values) ?? problem.field}: ${plainMessage(problem.message)}`).join(" "))
              : mutation.error
          }
        />
      )}
      {confirmed && (
        <p role="status" className="rounded border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900">
          {confirmed}
        </p>
      )}
      {live?.content}
      {live?.blocked && (
        <p id={blockedId} className="text-sm text-amber-800" data-testid="form-blocked">
          {live.blocked}
        </p>
      )}
      <Button
        type="submit"
        variant={variant}
        disabled={mutation.isPending || Boolean(live?.blocked)}
        aria-busy={mutation.isPending}
        aria-describedby={live?.blocked ? blockedId : undefined}
      >
        {mutation.isPending ? "Working…" : submitLabel}
      </Button>
      {confirming && confirm && (
        <ConfirmDialog
          title={confirm.title}
          confirmLabel={confirm.label}
          busy={mutation.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={() => mutation.mutate()}
        >
          {confirm.body}
        </ConfirmDialog>
      )}
    </form>
  );
}

/** Beside a money field: the typed amount as money ("= 15,00 €"), never the API's atoms. */
function moneyHint(field: FormField, typed: string, currency: string, locale: string): string | undefined {
  if (!typed.trim()) return field.hint;
  const parsed = parseAmount(typed, currency, locale);
  return parsed.ok ? `= ${formatAtoms(parsed.atoms, currency, locale)}` : field.hint;
}
