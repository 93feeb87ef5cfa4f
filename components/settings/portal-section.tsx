"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { dashboardCall } from "@/components/api-client";
import { MutationError, useApiMutation } from "@/components/api-mutation";
import { useCan } from "@/components/dashboard/role";
import { PlanSummary } from "@/components/objects/names";
import { usePriceOptions } from "@/components/objects/pickers";
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

/**
 * Settings › Customer portal: what the hosted portal lets customers do, and how it looks. Saved
 * through the API by admins and owners; other roles read what is on (the form they could not
 * save is not shown).
 */
export function PortalSection({ accountId }: { accountId: string }) {
  const canSave = useCan("admin");
  const query = useQuery({ queryKey: ["portal-configuration", accountId], queryFn: () => fetchConfiguration(accountId) });
  return (
    <Card title="Customer portal">
      {query.isPending ? (
        <Loading what="Loading the portal configuration" />
      ) : query.isError ? (
        <ErrorBox error={query.error} />
      ) : canSave ? (
        <PortalForm accountId={accountId} initial={query.data} />
      ) : (
        <PortalSummary configuration={query.data} />
      )}
    </Card>
  );
}

/** What the portal lets customers do, read-only, for a role that cannot change it. */
function PortalSummary({ configuration }: { configuration: Configuration }) {
  const on = TOGGLES.filter(([key]) => configuration.features[key].enabled).map(([, label]) => label);
  return (
    <div className="space-y-1 text-sm" aria-label="Customer portal features">
      <p>Customers can: {on.length > 0 ? on.join(", ") : "nothing but read their subscriptions"}.</p>
      <p className="text-slate-600">Admins and owners change these settings.</p>
    </div>
  );
}

/**
 * The prices customers may switch between, picked by name among the active recurring prices; a
 * chosen price no longer active stays listed (by its product and amount) until unticked.
 */
function AllowedPrices({ accountId, chosen, onChange }: { accountId: string; chosen: string[]; onChange: (next: string[]) => void }) {
  const prices = usePriceOptions(accountId, "recurring");
  const toggle = (id: string, checked: boolean) => onChange(checked ? [...chosen, id] : chosen.filter((value) => value !== id));
  const others = chosen.filter((id) => !prices.options.some((option) => option.value === id));
  return (
    <fieldset className="space-y-1" aria-label="Prices customers may switch between">
      <legend className="mb-1 text-sm font-medium">Prices customers may switch between</legend>
      {prices.isPending ? (
        <Loading what="Loading prices" />
      ) : prices.error ? (
        <ErrorBox error={prices.error} />
      ) : prices.options.length === 0 && others.length === 0 ? (
        <p className="text-sm text-slate-600">No recurring prices yet: create one on a product&apos;s page.</p>
      ) : (
        <>
          {prices.options.map((option) => (
            <label key={option.value} className="flex items-center gap-2 text-sm" title={option.value}>
              <input type="checkbox" checked={chosen.includes(option.value)} onChange={(event) => toggle(option.value, event.target.checked)} />
              {option.label}
            </label>
          ))}
          {others.map((id) => (
            <label key={id} className="flex items-center gap-2 text-sm" title={id}>
              <input type="checkbox" checked onChange={(event) => toggle(id, event.target.checked)} />
              <PlanSummary accountId={accountId} priceId={id} quantity={1} /> <span className="text-slate-500">(no longer active)</span>
            </label>
          ))}
        </>
      )}
      <p className="text-xs text-slate-500">The portal&apos;s &ldquo;Switch plan&rdquo; offers the ticked prices (with the quantity, when customers may change it).</p>
    </fieldset>
  );
}

function PortalForm({ accountId, initial }: { accountId: string; initial: Configuration }) {
  const queryClient = useQueryClient();
  const [enabled, setEnabled] = useState(() => Object.fromEntries(TOGGLES.map(([key]) => [key, initial.features[key].enabled])) as Record<(typeof TOGGLES)[number][0], boolean>);
  const [mode, setMode] = useState(initial.features.subscription_cancel.mode);
  const [prices, setPrices] = useState<string[]>(initial.features.subscription_update.prices);
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
              prices,
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
      <AllowedPrices accountId={accountId} chosen={prices} onChange={setPrices} />
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
