"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { ApiForm, toAtoms } from "@/components/objects/api-form";
import { ObjectLink } from "@/components/objects/links";
import { formatMoney } from "@/components/invoices/format";
import { Card, ErrorBox, formatTime, Loading, StatusBadge, Table } from "@/components/ui";
import { CREDIT_GRANT_STATUS_WORDS } from "@/lib/credit-grants/statuses";

/* Credit grants in the dashboard (docs/billing.md, "Credit grants"): a customer's, with the form that grants credit, and the Credits section's list with each grant's ledger. */

type Grant = Awaited<ReturnType<typeof listGrants>>["items"][number];

const listGrants = (accountId: string, customer?: string) =>
  dashboardCall("listCreditGrants", { path: { account_id: accountId }, query: { limit: 100, ...(customer ? { customer } : {}) } });

export const creditGrantQueryKeys = {
  all: (accountId: string) => ["credit-grants", accountId] as const,
  ofCustomer: (accountId: string, customerId: string) => ["credit-grants", accountId, "customer", customerId] as const,
  ledger: (accountId: string, grantId: string) => ["credit-grants", accountId, "ledger", grantId] as const,
};

const appliesTo = (grant: Grant) => (grant.applies_to === "all" ? "All lines" : `Meters: ${grant.applies_to.meters.join(", ")}`);

function GrantRows({ accountId, grants, showCustomer }: { accountId: string; grants: Grant[]; showCustomer: boolean }) {
  return (
    <>
      {grants.map((grant) => (
        <tr key={grant.id} className="align-top">
          <td className="px-3 py-2">
            {grant.name ?? grant.category}
            <span className="block break-all font-mono text-xs text-slate-500">{grant.id}</span>
          </td>
          {showCustomer && (
            <td className="px-3 py-2">
              <ObjectLink accountId={accountId} id={grant.customer} />
            </td>
          )}
          <td className="px-3 py-2 tabular-nums" data-testid="grant-remaining">
            {formatMoney(grant.remaining_atom, grant.currency)}
            <span className="block text-xs text-slate-500">of {formatMoney(grant.amount_atom, grant.currency)}</span>
          </td>
          <td className="px-3 py-2">{appliesTo(grant)}</td>
          <td className="px-3 py-2">{grant.priority}</td>
          <td className="whitespace-nowrap px-3 py-2">{grant.expires_at ? formatTime(grant.expires_at) : "Never"}</td>
          <td className="px-3 py-2">
            <StatusBadge status={grant.status} label={CREDIT_GRANT_STATUS_WORDS[grant.status]} />
          </td>
        </tr>
      ))}
    </>
  );
}

/** A customer's grants (remaining, expiry) and the "Grant credit" form. */
export function CustomerCreditGrants({ accountId, customerId }: { accountId: string; customerId: string }) {
  const query = useQuery({ queryKey: creditGrantQueryKeys.ofCustomer(accountId, customerId), queryFn: () => listGrants(accountId, customerId) });
  return (
    <Card title="Credit grants">
      <div className="space-y-4 text-sm">
        {query.isPending ? (
          <Loading what="Loading the credit grants" />
        ) : query.isError ? (
          <ErrorBox error={query.error} />
        ) : query.data.items.length === 0 ? (
          <p className="text-slate-600">No credit granted. A grant pays the customer&apos;s invoice lines at finalization, before the balance.</p>
        ) : (
          <Table label="Credit grants" head={["Grant", "Remaining", "Applies to", "Priority", "Expires", "Status"]}>
            <GrantRows accountId={accountId} grants={query.data.items} showCustomer={false} />
          </Table>
        )}
        <ApiForm
          label="Grant credit"
          submitLabel="Grant credit"
          operation="createCreditGrant"
          params={{ path: { account_id: accountId } }}
          invalidate={[creditGrantQueryKeys.all(accountId)]}
          confirmation={(row) => `Granted ${formatMoney(row.amount_atom, row.currency)}.`}
          fields={[
            { name: "amount", label: "Amount", kind: "money", currency: { field: "currency" }, required: true, errorFields: ["amount_atom"] },
            { name: "currency", label: "Currency", initial: "usd", required: true },
            {
              name: "category",
              label: "Category",
              kind: "select",
              initial: "promotional",
              options: [
                { value: "promotional", label: "Promotional (given)" },
                { value: "paid", label: "Paid (bought by the customer)" },
              ],
            },
            { name: "meters", label: "Meters (ids, comma-separated)", hint: "Empty: every line of the customer's invoices.", errorFields: ["applies_to", "applies_to.meters"] },
            { name: "priority", label: "Priority", kind: "number", hint: "0–100, lower first. Default 50." },
            { name: "expires_at", label: "Expires at", hint: "ISO 8601, e.g. 2027-01-31T00:00:00Z. Empty: never." },
            { name: "name", label: "Name" },
          ]}
          toBody={(values, { locale }) => {
            const meters = (values.meters ?? "")
              .split(",")
              .map((meter) => meter.trim())
              .filter(Boolean);
            return {
              customer: customerId,
              amount_atom: toAtoms(values.amount ?? "", values.currency ?? "usd", locale),
              currency: values.currency,
              category: values.category,
              applies_to: meters.length > 0 ? { meters } : "all",
              ...(values.priority ? { priority: Number(values.priority) } : {}),
              ...(values.expires_at ? { expires_at: values.expires_at } : {}),
              ...(values.name ? { name: values.name } : {}),
            };
          }}
        />
      </div>
    </Card>
  );
}

/** One grant's ledger: what it paid on which invoice line. */
function GrantLedger({ accountId, grantId }: { accountId: string; grantId: string }) {
  const query = useQuery({
    queryKey: creditGrantQueryKeys.ledger(accountId, grantId),
    queryFn: () => dashboardCall("listCreditGrantApplications", { path: { account_id: accountId, credit_grant_id: grantId } }),
  });
  if (query.isPending) return <Loading what="Loading the ledger" />;
  if (query.isError) return <ErrorBox error={query.error} />;
  if (query.data.items.length === 0) return <p className="text-sm text-slate-600">Not applied yet.</p>;
  return (
    <Table label={`Ledger of ${grantId}`} head={["When", "Invoice", "Line", "Amount"]}>
      {query.data.items.map((entry) => (
        <tr key={entry.id}>
          <td className="px-3 py-2">{formatTime(entry.created)}</td>
          <td className="px-3 py-2">
            <ObjectLink accountId={accountId} id={entry.invoice} />
          </td>
          <td className="px-3 py-2 font-mono text-xs">{entry.line}</td>
          <td className="px-3 py-2 tabular-nums">{formatMoney(entry.amount_atom, entry.currency)}</td>
        </tr>
      ))}
    </Table>
  );
}

/** The Credits section: every grant of the account, newest first, and on demand its ledger. */
export function CreditGrantsSection({ accountId }: { accountId: string }) {
  const query = useQuery({ queryKey: creditGrantQueryKeys.all(accountId), queryFn: () => listGrants(accountId) });
  const [open, setOpen] = useState<string | null>(null);
  if (query.isPending) return <Loading what="Loading the credit grants" />;
  if (query.isError) return <ErrorBox error={query.error} />;
  const grants = query.data.items;
  if (grants.length === 0) {
    return <p className="rounded border border-slate-200 bg-white p-3 text-sm text-slate-700">No credit granted yet. Grant credit from a customer&apos;s page.</p>;
  }
  return (
    <div className="space-y-4">
      <Table label="Credit grants" head={["Grant", "Customer", "Remaining", "Applies to", "Priority", "Expires", "Status"]}>
        <GrantRows accountId={accountId} grants={grants} showCustomer />
      </Table>
      <Card title="Ledger">
        <div className="space-y-2 text-sm">
          <label className="flex items-center gap-2">
            Grant
            <select className="rounded border border-slate-300 px-2 py-1" value={open ?? ""} onChange={(event) => setOpen(event.target.value || null)}>
              <option value="">Choose a grant</option>
              {grants.map((grant) => (
                <option key={grant.id} value={grant.id}>
                  {grant.name ?? grant.id} ({formatMoney(grant.amount_atom, grant.currency)})
                </option>
              ))}
            </select>
          </label>
          {open && <GrantLedger accountId={accountId} grantId={open} />}
        </div>
      </Card>
      {query.data.has_more && <p className="text-sm text-slate-600">Showing the newest 100 grants.</p>}
    </div>
  );
}
