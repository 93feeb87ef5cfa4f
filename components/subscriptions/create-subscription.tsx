"use client";

import { useRouter } from "next/navigation";
import { ApiForm } from "@/components/objects/api-form";
import { toInteger, useCustomerOptions, usePriceOptions } from "@/components/objects/pickers";
import { collectionBody, collectionFields } from "@/components/objects/collection-method";
import { CreatePanel, ErrorBox, Loading } from "@/components/ui";
import { subscriptionHref, subscriptionQueryKeys } from "./format";

/**
 * "New subscription" above the list: a customer, a recurring price, a quantity and an optional
 * trial, sent to the same `POST /subscriptions` merchants' servers call.
 */
export function CreateSubscription({ accountId, customer, open: openAtFirst = false }: { accountId: string; customer?: string; open?: boolean }) {
  return (
    <CreatePanel title="New subscription" open={openAtFirst}>
      <SubscriptionForm accountId={accountId} customer={customer} />
    </CreatePanel>
  );
}

function SubscriptionForm({ accountId, customer }: { accountId: string; customer?: string }) {
  const router = useRouter();
  const customers = useCustomerOptions(accountId, customer);
  const prices = usePriceOptions(accountId, "recurring");
  if (customers.isPending || prices.isPending) return <Loading what="Loading customers and prices" />;
  if (customers.error || prices.error) return <ErrorBox error={customers.error ?? prices.error} />;
  if (customers.options.length === 0) return <p className="text-sm text-slate-600">Create a customer first.</p>;
  if (prices.options.length === 0) {
    return <p className="text-sm text-slate-600">Create a product with a recurring price first.</p>;
  }
  return (
    <ApiForm
      label="New subscription"
      submitLabel="Create subscription"
      operation="createSubscription"
      params={{ path: { account_id: accountId } }}
      invalidate={[subscriptionQueryKeys.subscriptions(accountId)]}
      onDone={(subscription) => router.push(subscriptionHref(accountId, subscription.id))}
      fields={[
        { name: "customer", label: "Customer", kind: "select", options: customers.options, initial: customer },
        { name: "price", label: "Price", kind: "select", options: prices.options, errorFields: ["items", "items.0.price"] },
        { name: "quantity", label: "Quantity", kind: "number", initial: "1", errorFields: ["items.0.quantity"] },
        { name: "trial_period_days", label: "Trial days (optional)", kind: "number", errorFields: ["trial_end"] },
        ...collectionFields,
      ]}
      toBody={(values) => ({
        customer: values.customer,
        items: [{ price: values.price, ...(values.quantity?.trim() ? { quantity: toInteger(values.quantity) } : {}) }],
        ...(values.trial_period_days?.trim() ? { trial_period_days: toInteger(values.trial_period_days) } : {}),
        ...collectionBody(values),
      })}
    />
  );
}
