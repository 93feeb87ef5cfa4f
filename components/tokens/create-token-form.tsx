"use client";

import { useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { MutationError, useApiMutation } from "@/components/api-mutation";
import { Button, Field, inputClass } from "@/components/ui";
import type { ApiTokenKind, ApiTokenWithSecret } from "@/components/api-types";
import { GRANT_LEVELS, RESOURCES, type GrantLevel, type Permissions } from "@/lib/permissions";

/** How the form names each resource of a restricted key (docs/api.md, "Restricted keys"). */
const RESOURCE_LABELS: Record<(typeof RESOURCES)[number], string> = {
  customers: "Customers",
  subscriptions: "Subscriptions",
  invoices: "Invoices",
  credit_notes: "Credit notes",
  prices_products: "Prices and products",
  usage: "Usage (ingest)",
  meters: "Meters",
  payments_refunds: "Payments and refunds",
  checkout: "Checkout",
  portal_sessions: "Portal sessions",
  webhook_endpoints: "Webhook endpoints",
  events: "Events",
  logs: "Logs",
  tokens: "Tokens",
  settings: "Settings",
};

type CreateBody = {
  name: string;
  kind: ApiTokenKind;
  description?: string;
  permissions?: Permissions;
  expires_at?: string;
  allowed_ips?: string[];
};

export function CreateTokenForm({
  accountId,
  onCreated,
}: {
  accountId: string;
  onCreated: (token: ApiTokenWithSecret) => void;
}) {
  const [name, setName] = useState("");
  const [kind, setKind] = useState<ApiTokenKind>("secret");
  const [permissions, setPermissions] = useState<Permissions>({});
  const [description, setDescription] = useState("");
  const [expiresAt, setExpiresAt] = useState("");
  const [allowedIps, setAllowedIps] = useState("");
  const create = useApiMutation({
    call: (body: CreateBody) => dashboardCall("createApiToken", { path: { account_id: accountId }, body }),
    onAnswer: (token) => {
      onCreated(token);
      setName("");
      // The full token must live only in the parent's state: drop it from the mutation cache.
      create.reset();
    },
    refresh: [["api-tokens", accountId]],
    refreshInBackground: true,
    fields: ["name", "kind", "description", "permissions", "expires_at", "allowed_ips"],
  });

  function body(): CreateBody {
    const ranges = allowedIps.split(/[\s,]+/).filter(Boolean);
    return {
      name,
      kind,
      ...(description.trim() ? { description } : {}),
      ...(kind === "restricted" ? { permissions } : {}),
      // The datetime-local input is the browser's local time.
      ...(expiresAt ? { expires_at: new Date(expiresAt).toISOString() } : {}),
      ...(ranges.length ? { allowed_ips: ranges } : {}),
    };
  }

  return (
    <form
      noValidate
      aria-label="Create token"
      className="grid gap-3 sm:grid-cols-[1fr_12rem_auto] sm:items-start"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate(body());
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
          <option value="restricted">Restricted</option>
        </select>
      </Field>
      {/* Aligns the button with the inputs, below their labels, on wide screens. */}
      <div className="sm:pt-6">
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create token"}
        </Button>
      </div>
      <details className="sm:col-span-3" open={kind === "restricted"}>
        <summary className="cursor-pointer text-sm text-slate-700">Description, expiry and allowed addresses</summary>
        <div className="mt-2 grid gap-3 sm:grid-cols-3">
          <Field label="Description" error={create.fieldErrors.description}>
            <input className={inputClass} value={description} onChange={(event) => setDescription(event.target.value)} maxLength={500} />
          </Field>
          <Field label="Expires at (optional)" error={create.fieldErrors.expires_at}>
            <input type="datetime-local" className={inputClass} value={expiresAt} onChange={(event) => setExpiresAt(event.target.value)} />
          </Field>
          <Field label="Allowed IP ranges (CIDR, optional)" error={create.fieldErrors.allowed_ips}>
            <input
              className={inputClass}
              placeholder="e.g. 203.0.113.0/24"
              value={allowedIps}
              onChange={(event) => setAllowedIps(event.target.value)}
            />
          </Field>
        </div>
      </details>
      {kind === "restricted" ? (
        <fieldset className="sm:col-span-3" aria-label="Permissions">
          <legend className="text-sm font-medium text-slate-700">Permissions</legend>
          {create.fieldErrors.permissions ? <p className="text-sm text-red-700">{create.fieldErrors.permissions}</p> : null}
          <div className="mt-2 grid gap-2 sm:grid-cols-3">
            {RESOURCES.map((resource) => (
              <label key={resource} className="flex items-center justify-between gap-2 text-sm">
                <span>{RESOURCE_LABELS[resource]}</span>
                <select
                  aria-label={`${RESOURCE_LABELS[resource]} permission`}
                  className={`${inputClass} w-28`}
                  value={permissions[resource] ?? "none"}
                  onChange={(event) => setPermissions({ ...permissions, [resource]: event.target.value as GrantLevel })}
                >
                  {GRANT_LEVELS.map((level) => (
                    <option key={level} value={level}>
                      {level === "none" ? "None" : level === "read" ? "Read" : "Write"}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          </div>
        </fieldset>
      ) : null}
      {create.otherError ? (
        <div className="sm:col-span-3">
          <MutationError mutation={create} />
        </div>
      ) : null}
    </form>
  );
}
