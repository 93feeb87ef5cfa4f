"use client";

import { useQueries } from "@tanstack/react-query";
import { useState } from "react";
import { dashboardCall } from "@/components/api-client";
import type { Subscription, SubscriptionChangeRequest } from "@/components/api-types";
import { formatMoney } from "@/components/invoices/format";
import { ApiAction } from "@/components/objects/confirm-action";
import { ApiForm } from "@/components/objects/api-form";
import { priceLabel } from "@/components/objects/labels";
import { toInteger, usePriceOptions } from "@/components/objects/pickers";
import { OBJECT_READS } from "@/components/objects/reads";
import { Card, ErrorBox, Loading, StatusBadge } from "@/components/ui";
import { changeRequestActions, changeRequestFacts } from "@/lib/subscription-changes/rules";
import { subscriptionQueryKeys } from "./format";

const KEEP = "";

const BEHAVIORS = [
  { value: "create_prorations", label: "Prorate (charge an increase now, credit a decrease to the balance)" },
  { value: "always_invoice", label: "Invoice the net at once" },
  { value: "none", label: "No proration" },
];

const EFFECTS = [
  { value: "", label: "Account policy" },
  { value: "now", label: "Now" },
  { value: "period_end", label: "At the period end" },
];

/**
 * "Change items": one item's price and/or quantity, with a proration behaviour. Sending it creates
 * an open change request (nothing changes yet); its preview is shown from the API's object, then
 * Apply or Discard.
 */
export function ChangeRequestForm({ accountId, subscription }: { accountId: string; subscription: Subscription }) {
  const [request, setRequest] = useState<SubscriptionChangeRequest | null>(null);
  const prices = usePriceOptions(accountId, "recurring");
  const itemPrices = useItemPriceLabels(accountId, subscription, prices.isPending ? null : new Set(prices.options.map((option) => option.value)));
  if (subscription.status === "cancelled" || subscription.items.length === 0) return null;
  return (
    <Card title="Change items">
      {request ? (
        <ChangePreview accountId={accountId} subscription={subscription} request={request} onChange={setRequest} />
      ) : prices.isPending ? (
        <Loading what="Loading prices" />
      ) : prices.error ? (
        <ErrorBox error={prices.error} />
      ) : (
        <ApiForm
          label="Change items"
          submitLabel="Preview the change"
          operation="createSubscriptionChangeRequest"
          params={{ path: { account_id: accountId, subscription_id: subscription.id } }}
          onDone={(created) => setRequest(created)}
          fields={[
            {
              name: "item",
              label: "Item",
              kind: "select",
              // Each item by its price's name and its quantity; an archived price (not among the
              // active ones) by its own read; the id only until that read answers.
              options: subscription.items.map((item, index) => ({
                value: item.id,
                label: `${prices.options.find((option) => option.value === item.price)?.label ?? itemPrices[index]?.data ?? item.price} × ${item.quantity}`,
              })),
              errorFields: ["steps.0.item", "steps.1.item"],
            },
            {
              name: "price",
              label: "New price",
              kind: "select",
              options: [
                { value: KEEP, label: "Keep its price" },
                ...prices.options.filter((option) => prices.currencyOf.get(option.value) === subscription.currency),
              ],
              errorFields: ["steps.0.price"],
            },
            { name: "quantity", label: "New quantity (optional)", kind: "number", errorFields: ["steps.0.quantity", "steps.1.quantity", "steps"] },
            { name: "proration_behavior", label: "Proration", kind: "select", options: BEHAVIORS },
            { name: "effective", label: "Takes effect", kind: "select", options: EFFECTS },
          ]}
          toBody={(values) => {
            const item = subscription.items.find((row) => row.id === values.item);
            const steps: unknown[] = [];
            if (values.price && values.price !== item?.price) steps.push({ type: "switch_price", item: values.item, price: values.price });
            const quantity = values.quantity?.trim() ? toInteger(values.quantity) : undefined;
            if (quantity !== undefined && quantity !== item?.quantity) steps.push({ type: "set_quantity", item: values.item, quantity });
            return { steps, proration_behavior: values.proration_behavior, ...(values.effective ? { effective: values.effective } : {}) };
          }}
        />
      )}
    </Card>
  );
}

/** The labels of the items' prices that are not among the active ones (archived since), read one by one. */
function useItemPriceLabels(accountId: string, subscription: Subscription, active: Set<string> | null) {
  return useQueries({
    queries: subscription.items.map((item) => ({
      queryKey: ["names", accountId, "prices", item.price, "label"],
      queryFn: async () => {
        const price = await OBJECT_READS.prices.get(accountId, item.price);
        const product = typeof price.product === "string" ? await OBJECT_READS.products.get(accountId, price.product) : null;
        return `${product && typeof product.name === "string" ? `${product.name} · ` : ""}${priceLabel(price)}`;
      },
      enabled: active !== null && !active.has(item.price),
      staleTime: 5 * 60_000,
    })),
  });
}

/**
 * The change request's own preview: every figure is the API's, as it will be billed
 * (`amount_due_now_total_atom`, `next_invoice_total_atom`: discount and taxes included; a request
 * made before those existed shows its amounts), and `proration_credit_atom`.
 */
export function ChangePreview({
  accountId,
  subscription,
  request,
  onChange,
}: {
  accountId: string;
  subscription: Subscription;
  request: SubscriptionChangeRequest;
  onChange: (next: SubscriptionChangeRequest | null) => void;
}) {
  const money = (atoms: number) => formatMoney(atoms, request.currency);
  const path = { account_id: accountId, subscription_id: subscription.id, change_request_id: request.id };
  const invalidate = [subscriptionQueryKeys.subscriptions(accountId), ["events", accountId], ["customers", accountId]];
  // Apply and Discard show exactly when the API accepts them (lib/subscription-changes/rules.ts).
  const can = changeRequestActions(changeRequestFacts(request));
  const dueNow = request.amount_due_now_total_atom ?? request.amount_due_now_atom;
  const nextInvoice = request.next_invoice_total_atom ?? request.next_invoice_amount_atom;
  const rows: [string, string, string, number][] = [
    ["Due now, discount and taxes included", "change-due-now", money(dueNow), dueNow],
    ["Credit to the customer's balance", "change-credit", money(request.proration_credit_atom), request.proration_credit_atom],
    ["Next invoice, discount and taxes included", "change-next-invoice", money(nextInvoice), nextInvoice],
  ];
  return (
    <div className="space-y-3 text-sm" aria-label="Change preview">
      <p>
        <code className="font-mono text-xs">{request.id}</code> <StatusBadge status={request.status} /> · {request.proration_behavior} ·{" "}
        {request.effective === "period_end" ? "at the period end (nothing is prorated)" : "now"}
      </p>
      <dl className="grid grid-cols-1 gap-2 sm:grid-cols-3">
        {rows.map(([label, testId, text, atoms]) => (
          <div key={testId} className="rounded border border-slate-200 p-2">
            <dt className="text-slate-600">{label}</dt>
            <dd className="font-semibold tabular-nums" data-testid={testId} data-atoms={atoms}>
              {text}
            </dd>
          </div>
        ))}
      </dl>
      {request.last_error && <p role="alert" className="text-red-700">{request.last_error}</p>}
      {request.balance_transaction && (
        <p>
          Credited: balance transaction <code className="font-mono text-xs">{request.balance_transaction}</code>
        </p>
      )}
      <div className="flex flex-wrap items-center gap-2">
        {can.apply ? (
          <ApiAction
            label={dueNow > 0 ? `Charge ${money(dueNow)} and apply` : request.effective === "period_end" ? "Schedule" : "Apply"}
            variant="primary"
            send={() => dashboardCall("applySubscriptionChangeRequest", { path, body: {} })}
            invalidate={invalidate}
            onDone={onChange}
          />
        ) : null}
        {can.cancel && (
          <ApiAction
            label="Discard"
            send={() => dashboardCall("cancelSubscriptionChangeRequest", { path, body: {} })}
            invalidate={invalidate}
            onDone={() => onChange(null)}
          />
        )}
        {request.status !== "open" && (
          <button type="button" className="text-indigo-700 underline" onClick={() => onChange(null)}>
            New change
          </button>
        )}
      </div>
    </div>
  );
}
