"use client";

import { useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { MutationError, useApiMutation } from "@/components/api-mutation";
import { Button, Field, inputClass } from "@/components/ui";
import type { ApiTokenKind, ApiTokenWithSecret } from "@/components/api-types";

export function CreateTokenForm({
  accountId,
  onCreated,
}: {
  accountId: string;
  onCreated: (token: ApiTokenWithSecret) => void;
}) {
  const [name, setName] = useState("");
  const [kind, setKind] = useState<ApiTokenKind>("secret");
  const create = useApiMutation({
    call: (body: { name: string; kind: ApiTokenKind }) => dashboardCall("createApiToken", { path: { account_id: accountId }, body }),
    onAnswer: (token) => {
      onCreated(token);
      setName("");
      // The full token must live only in the parent's state: drop it from the mutation cache.
      create.reset();
    },
    refresh: [["api-tokens", accountId]],
    refreshInBackground: true,
    fields: ["name", "kind"],
  });

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
      <Field label="Name" error={create.fieldErrors.name}>
        <input
          placeholder="e.g. Production server"
          className={inputClass}
          value={name}
          onChange={(event) => setName(event.target.value)}
          maxLength={100}
          autoComplete="off"
          aria-invalid={create.fieldErrors.name ? true : undefined}
        />
      </Field>
      <Field label="Kind" error={create.fieldErrors.kind}>
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
      {create.otherError ? (
        <div className="sm:col-span-3">
          <MutationError mutation={create} />
        </div>
      ) : null}
    </form>
  );
}
