"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { dashboardCall } from "@/components/api-client";
import { MutationError, useApiMutation } from "@/components/api-mutation";
import { Button, Card, ErrorBox, Field, inputClass, Loading } from "@/components/ui";

type Configuration = Awaited<ReturnType<typeof fetchConfiguration>>;
const fetchConfiguration = (accountId: string) => dashboardCall("getPortalConfiguration", { path: { account_id: accountId } });

const TOGGLES = [
  ["invoice_history", "Invoice history"],
  ["customer_update", "Update billing details"],
  ["payment_method_update", "Update payment method"],
  ["subscription_cancel", "Cancel"],
  ["subscription_pause", "Pause and resume"],
  ["subscription_update", "Switch plan"],
] as const;

/** Settings › Customer portal: what the hosted portal lets customers do, and how it looks. Saved through the API. */
export function PortalSection({ accountId }: { accountId: string }) {
  const query = useQuery({ queryKey: ["portal-configuration", accountId], queryFn: () => fetchConfiguration(accountId) });
  return (
    <Card title="Customer portal">
      {query.isPending ? <Loading what="Loading the portal configuration" /> : query.isError ? <ErrorBox error={query.error} /> : <PortalForm accountId={accountId} initial={query.data} />}
    </Card>
  );
}

function PortalForm({ accountId, initial }: { accountId: string; initial: Configuration }) {
  const queryClient = useQueryClient();
  const [enabled, setEnabled] = useState(() => Object.fromEntries(TOGGLES.map(([key]) => [key, initial.features[key].enabled])) as Record<(typeof TOGGLES)[number][0], boolean>);
  const [mode, setMode] = useState(initial.features.subscription_cancel.mode);
  const [prices, setPrices] = useState(initial.features.subscription_update.prices.join(", "));
  const [quantity, setQuantity] = useState(initial.features.subscription_update.quantity);
  const [planChange, setPlanChange] = useState(initial.features.subscription_update.plan_change);
  const [branding, setBranding] = useState(initial.branding);
  const [returnUrl, setReturnUrl] = useState(initial.default_return_url ?? "");
  const save = useApiMutation({
    call: () =>
      dashboardCall("updatePortalConfiguration", {
        path: { account_id: accountId },
        body: {
          features: {
            invoice_history: { enabled: enabled.invoice_history },
            customer_update: { enabled: enabled.customer_update },
            payment_method_update: { enabled: enabled.payment_method_update },
            subscription_cancel: { enabled: enabled.subscription_cancel, mode },
            subscription_pause: { enabled: enabled.subscription_pause },
            subscription_update: {
              enabled: enabled.subscription_update,
              plan_change: planChange,
              prices: prices.split(/[\s,]+/).filter(Boolean),
              quantity,
            },
          },
          branding: {
            business_name: branding.business_name || null,
            accent_color: branding.accent_color || null,
            logo_url: branding.logo_url || null,
          },
          default_return_url: returnUrl || null,
        },
      }),
    onAnswer: (saved) => queryClient.setQueryData(["portal-configuration", accountId], saved),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} className="space-y-4" aria-label="Customer portal configuration">
      <fieldset className="grid grid-cols-1 gap-2 sm:grid-cols-2">
        <legend className="mb-1 text-sm font-medium">What customers can do</legend>
        {TOGGLES.map(([key, label]) => (
          <label key={key} className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={enabled[key]} onChange={(event) => setEnabled({ ...enabled, [key]: event.target.checked })} />
            {label}
          </label>
        ))}
      </fieldset>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <Field label="Cancel">
          <select className={inputClass} value={mode} onChange={(event) => setMode(event.target.value as typeof mode)}>
            <option value="at_period_end">At the period end</option>
            <option value="immediately">Immediately</option>
          </select>
        </Field>
        <Field label="Quantity minimum">
          <input className={inputClass} type="number" min={1} value={quantity.minimum} onChange={(event) => setQuantity({ ...quantity, minimum: Number(event.target.value) })} />
        </Field>
        <Field label="Quantity maximum">
          <input className={inputClass} type="number" min={1} value={quantity.maximum} onChange={(event) => setQuantity({ ...quantity, maximum: Number(event.target.value) })} />
        </Field>
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={quantity.enabled} onChange={(event) => setQuantity({ ...quantity, enabled: event.target.checked })} />
        Customers may change the quantity
      </label>
      <Field label="Prices customers may switch between" hint="Price ids, separated by commas.">
        <input className={inputClass} value={prices} onChange={(event) => setPrices(event.target.value)} />
      </Field>
      <Field label="Plan changes" hint="A downgrade is one with nothing to pay now; at the period end it waits for the renewal.">
        <select className={inputClass} value={planChange} onChange={(event) => setPlanChange(event.target.value as typeof planChange)}>
          <option value="account_policy">As the account&apos;s plan change policy</option>
          <option value="immediate">Every change now</option>
          <option value="upgrade_now_downgrade_at_period_end">Upgrades now, downgrades at the period end</option>
        </select>
      </Field>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <Field label="Business name">
          <input className={inputClass} value={branding.business_name ?? ""} onChange={(event) => setBranding({ ...branding, business_name: event.target.value })} />
        </Field>
        <Field label="Accent colour" hint="#rrggbb">
          <input className={inputClass} value={branding.accent_color ?? ""} onChange={(event) => setBranding({ ...branding, accent_color: event.target.value })} />
        </Field>
        <Field label="Logo URL" hint="https: only">
          <input className={inputClass} value={branding.logo_url ?? ""} onChange={(event) => setBranding({ ...branding, logo_url: event.target.value })} />
        </Field>
      </div>
      <Field label="Default return URL">
        <input className={inputClass} value={returnUrl} onChange={(event) => setReturnUrl(event.target.value)} />
      </Field>
      <MutationError mutation={save} />
      {save.isSuccess && <p role="status" className="text-sm text-green-700">Saved.</p>}
      <Button type="submit" disabled={save.isPending}>
        Save portal settings
      </Button>
    </form>
  );
}
