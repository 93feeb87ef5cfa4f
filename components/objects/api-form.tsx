"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ApiError, apiFetch } from "@/components/api-client";
import { useCan } from "@/components/dashboard/role";
import { Button, ErrorBox, Field, inputClass } from "@/components/ui";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
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
};

/**
 * A form that calls one API operation. Field problems from the answer (`errors[].field`) show
 * beside their field in plain words; anything else shows above the button.
 */
export function ApiForm({
  fields,
  submitLabel,
  path,
  method = "POST",
  toBody,
  onDone,
  invalidate = [],
  label,
  confirm,
  variant = "primary",
}: {
  fields: FormField[];
  submitLabel: string;
  path: string;
  method?: string;
  toBody: (values: Record<string, string>) => unknown;
  onDone?: (result: Record<string, unknown>) => void;
  invalidate?: readonly (readonly unknown[])[];
  label: string;
  /** For a destructive step: asked before the request goes out. */
  confirm?: { title: string; body: string; label: string };
  variant?: "primary" | "danger";
}) {
  // Billing objects change for admins and owners only (lib/teams/roles.ts); the server checks too.
  const allowed = useCan("admin");
  const [confirming, setConfirming] = useState(false);
  const queryClient = useQueryClient();
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((field) => [field.name, field.initial ?? field.options?.[0]?.value ?? ""])),
  );
  const mutation = useMutation({
    mutationFn: () => apiFetch<Record<string, unknown>>(path, { method, body: toBody(values) }),
    onSettled: () => setConfirming(false),
    onSuccess: async (result) => {
      await Promise.all(invalidate.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      onDone?.(result);
    },
  });

  const problems = mutation.error instanceof ApiError ? (mutation.error.problem.errors ?? []) : [];
  const fieldOf = (apiField: string) =>
    fields.find((field) => field.name === apiField || field.errorFields?.includes(apiField))?.name;
  const inline: Record<string, string> = {};
  for (const problem of problems) {
    const name = fieldOf(problem.field);
    if (name && !inline[name]) inline[name] = plainMessage(problem.message);
  }
  const unmatched = problems.filter((problem) => !fieldOf(problem.field));
  const showGeneral = mutation.error && (problems.length === 0 || unmatched.length > 0);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (confirm) setConfirming(true);
    else mutation.mutate();
  }

  if (!allowed) return null;
  return (
    <form onSubmit={submit} aria-label={label} className="space-y-3">
      <div className="grid gap-3 sm:grid-cols-2">
        {fields.map((field) => (
          <Field key={field.name} label={field.label} error={inline[field.name]} hint={field.hint}>
            {field.kind === "select" ? (
              <select
                className={inputClass}
                value={values[field.name]}
                onChange={(event) => setValues({ ...values, [field.name]: event.target.value })}
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
                onChange={(event) => setValues({ ...values, [field.name]: event.target.value })}
              />
            )}
          </Field>
        ))}
      </div>
      {showGeneral && (
        <ErrorBox
          error={
            unmatched.length > 0
              ? new Error(unmatched.map((problem) => `${problem.field}: ${plainMessage(problem.message)}`).join(" "))
              : mutation.error
          }
        />
      )}
      <Button type="submit" variant={variant} disabled={mutation.isPending} aria-busy={mutation.isPending}>
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
