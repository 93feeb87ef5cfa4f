"use client";

import { useQuery } from "@tanstack/react-query";
import { dashboardCall } from "@/components/api-client";
import { ApiAction } from "@/components/objects/confirm-action";
import { Card, ErrorBox, Loading, Table } from "@/components/ui";
import { customerQueryKeys } from "./format";

/**
 * The customer's saved payment methods (`GET /customers/{id}/payment-methods`), which one is their
 * default (charged when a subscription or invoice has none of its own, docs/payments.md), and
 * "Make default" on the others: the same `POST /customers/{id}` `default_payment_method` a
 * merchant's server sends.
 */
export function CustomerPaymentMethods({ accountId, customerId, defaultPaymentMethod }: { accountId: string; customerId: string; defaultPaymentMethod: string | null }) {
  const customerKey = customerQueryKeys.customer(accountId, customerId);
  const methodsKey = [...customerKey, "payment-methods"] as const;
  const methods = useQuery({
    queryKey: methodsKey,
    queryFn: () => dashboardCall("listPaymentMethods", { path: { account_id: accountId, customer_id: customerId } }),
  });
  return (
    <Card title="Payment methods">
      <div className="space-y-3 text-sm">
        <p className="text-slate-600">
          Default: <span data-testid="customer-default-payment-method">{defaultPaymentMethod ?? "none"}</span>. It is charged for renewals, retries and invoices when the subscription has no payment method of its own.
        </p>
        {methods.isPending ? (
          <Loading what="Loading the payment methods" />
        ) : methods.isError ? (
          <ErrorBox error={methods.error} />
        ) : methods.data.items.length === 0 ? (
          <p className="text-slate-600">No saved payment method. The add-card link below lets the customer save one.</p>
        ) : (
          <Table label="Payment methods" head={["Id", "Card", "Expires", ""]}>
            {methods.data.items.map((method) => (
              <tr key={method.id} data-testid={`payment-method-${method.id}`}>
                <td className="px-3 py-2 font-mono text-xs break-all">{method.id}</td>
                <td className="px-3 py-2">
                  {method.card.brand ?? "card"} ···· {method.card.last4 ?? "????"}
                </td>
                <td className="px-3 py-2 tabular-nums">{method.card.exp_month && method.card.exp_year ? `${String(method.card.exp_month).padStart(2, "0")}/${method.card.exp_year}` : "—"}</td>
                <td className="px-3 py-2">
                  {method.id === defaultPaymentMethod ? (
                    <span className="rounded bg-indigo-50 px-2 py-0.5 text-xs text-indigo-800">Default</span>
                  ) : (
                    <ApiAction
                      label="Make default"
                      send={() => dashboardCall("updateCustomer", { path: { account_id: accountId, customer_id: customerId }, body: { default_payment_method: method.id } })}
                      invalidate={[customerKey, ["events", accountId]]}
                    />
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </div>
    </Card>
  );
}
