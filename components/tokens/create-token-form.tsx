"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { Button, ErrorBox, Field, inputClass } from "@/components/ui";
import { splitFormError } from "@/components/ui/form-errors";
import type { ApiTokenKind, ApiTokenWithSecret } from "@/components/api-types";

export function CreateTokenForm({
  accountId,
  onCreated,
}: {
  accountId: string;
  onCreated: (token: ApiTokenWithSecret) => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [kind, setKind] = useState<ApiTokenKind>("secret");
  const create = useMutation({
    mutationFn: (body: { name: string; kind: ApiTokenKind }) =>
      dashboardCall("createApiToken", { path: { account_id: accountId }, body }),
    onSuccess: (token) => {
      onCreated(token);
      setName("");
      // The full token must live only in the parent's state: drop it from the mutation cache.
      create.reset();
      void queryClient.invalidateQueries({ queryKey: ["api-tokens", accountId] });
    },
  });
  const errors = splitFormError(create.error, ["name", "kind"] as const);

  return (
    <form
      noValidate
      aria-label="Create token"
      className="grid gap-3 sm:grid-cols-[1fr_12rem_auto] sm:items-start"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate({ name, kind });
      }}
    >
      <Field label="Name" error={errors.fields.name}>
        <input
          placeholder="e.g. Production server"
          className={inputClass}
          value={name}
          onChange={(event) => setName(event.target.value)}
          maxLength={100}
          autoComplete="off"
          aria-invalid={errors.fields.name ? true : undefined}
        />
      </Field>
      <Field label="Kind" error={errors.fields.kind}>
        <select className={inputClass} value={kind} onChange={(event) => setKind(event.target.value as ApiTokenKind)}>
          <option value="secret">Secret</option>
          <option value="publishable">Publishable</option>
        </select>
      </Field>
      {/* Aligns the button with the inputs, below their labels, on wide screens. */}
      <div className="sm:pt-6">
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create token"}
        </Button>
      </div>
      {errors.other ? (
        <div className="sm:col-span-3">
          <ErrorBox error={errors.other} />
        </div>
      ) : null}
    </form>
  );
}
