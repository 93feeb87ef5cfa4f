"use client";

import { useQuery } from "@tanstack/react-query";
import { dashboardCall } from "@/components/api-client";
import { ApiForm, toAtoms } from "@/components/objects/api-form";
import { Card, ErrorBox, formatTime, Loading, Table } from "@/components/ui";
import { formatMoney } from "@/components/invoices/format";
import { ObjectLink } from "@/components/objects/links";
import { customerQueryKeys } from "./format";

/**
 * The customer's balance per currency (positive: credit they have; negative: what they owe), its
 * ledger (newest 20), and a manual adjustment through `POST /customers/{id}/balance-transactions`.
 */
export function CustomerBalance({ accountId, customerId, balances }: { accountId: string; customerId: string; balances: Record<string, number> }) {
  const ledgerKey = [...customerQueryKeys.customer(accountId, customerId), "balance-transactions"] as const;
  const ledger = useQuery({
    queryKey: ledgerKey,
    queryFn: () => dashboardCall("listCustomerBalanceTransactions", { path: { account_id: accountId, customer_id: customerId }, query: { limit: 20 } }),
  });
  const currencies = Object.entries(balances);
  return (
    <Card title="Balance">
      <div className="space-y-4 text-sm">
        {currencies.length === 0 ? (
          <p className="text-slate-600">No balance. A credit here lowers the customer&apos;s next invoice in its currency; a debit is added to it.</p>
        ) : (
          <ul data-testid="balances" className="flex flex-wrap gap-4">
            {currencies.map(([currency, atoms]) => (
              <li key={currency}>
                <span className="font-semibold tabular-nums">{formatMoney(atoms, currency)}</span>{" "}
                <span className="text-slate-600">{atoms > 0 ? "credit" : atoms < 0 ? "owed" : ""}</span>
              </li>
            ))}
          </ul>
        )}
        {ledger.isPending ? (
          <Loading what="Loading the balance transactions" />
        ) : ledger.isError ? (
          <ErrorBox error={ledger.error} />
        ) : ledger.data.items.length > 0 ? (
          <Table label="Balance transactions" head={["When", "Type", "Amount", "Balance after", "Description / source"]}>
            {ledger.data.items.map((row) => (
              <tr key={row.id}>
                <td className="px-3 py-2">{formatTime(row.created)}</td>
                <td className="px-3 py-2">{row.type}</td>
                <td className="px-3 py-2 tabular-nums">{formatMoney(row.amount_atom, row.currency)}</td>
                <td className="px-3 py-2 tabular-nums">{formatMoney(row.ending_balance_atom, row.currency)}</td>
                <td className="px-3 py-2">
                  {row.description}
                  {row.credit_note && <ObjectLink accountId={accountId} id={row.credit_note} />}
                  {!row.credit_note && row.invoice && <ObjectLink accountId={accountId} id={row.invoice} />}
                </td>
              </tr>
            ))}
          </Table>
        ) : null}
        <ApiForm
          label="Adjust the balance"
          submitLabel="Adjust balance"
          operation="createCustomerBalanceTransaction"
          params={{ path: { account_id: accountId, customer_id: customerId } }}
          invalidate={[customerQueryKeys.customer(accountId, customerId)]}
          confirmation={(row) => `Done: the balance is now ${formatMoney(row.ending_balance_atom, row.currency)}.`}
          fields={[
            {
              name: "direction",
              label: "Kind",
              kind: "select",
              initial: "credit",
              options: [
                { value: "credit", label: "Credit the customer" },
                { value: "debit", label: "Debit the customer (they owe)" },
              ],
            },
            { name: "amount", label: "Amount", kind: "money", currency: { field: "currency" }, required: true, errorFields: ["amount_atom"] },
            { name: "currency", label: "Currency", initial: "usd", required: true },
            { name: "description", label: "Description", required: true },
          ]}
          toBody={(values, { locale }) => {
            const atoms = toAtoms(values.amount ?? "", values.currency ?? "usd", locale);
            return {
              amount_atom: typeof atoms === "number" && values.direction === "debit" ? -atoms : atoms,
              currency: values.currency,
              description: values.description,
            };
          }}
        />
      </div>
    </Card>
  );
}
