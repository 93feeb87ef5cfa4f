"use client";

import Link from "next/link";
import { Suspense } from "react";
import { DetailItem, Time } from "@/components/events/bits";
import { eventsHref } from "@/components/events/format";
import { dashboardCall } from "@/components/api-client";
import { BackLink, detailFallback, useApiObject } from "@/components/ui/detail";
import { Card, CopyButton, Loading } from "@/components/ui";
import { CustomerPortalLink } from "./customer-portal-link";
import { CustomerPaymentMethods } from "./customer-payment-methods";
import { CustomerAlerts } from "@/components/alerts/customer-alerts";
import { CustomerUsage } from "@/components/meters/customer-usage";
import { CustomerEntitlements } from "./customer-entitlements";
import { CustomerBalance } from "./customer-balance";
import { CustomerCreditGrants } from "@/components/credits/credit-grants";
import { EditCustomer } from "./customer-forms";
import { CustomerRelations } from "./customer-relations";
import { customerQueryKeys, customersHref } from "./format";

const linkClass = "text-sm text-indigo-700 underline hover:text-indigo-900";

/** One customer: every field, including custom fields, what belongs to them, and a way to its event timeline. */
export function CustomerDetail({ accountId, customerId }: { accountId: string; customerId: string }) {
  const query = useApiObject(customerQueryKeys.customer(accountId, customerId), () =>
    dashboardCall("getCustomer", { path: { account_id: accountId, customer_id: customerId }, query: { expand: "custom_fields" } }),
  );
  const back = <BackLink href={customersHref(accountId)}>Back to customers</BackLink>;
  const fallback = detailFallback(query, {
    noun: "customer",
    id: customerId,
    back,
    notFoundHint: "It may have been deleted, or belong to the other (live or sandbox) account.",
  });
  if (fallback || !query.data) return fallback;

  const customer = query.data;
  return (
    <>
      <div className="mb-2">{back}</div>
      <div className="mb-4 flex flex-wrap items-center justify-between gap-2">
        <h1 className="min-w-0 break-all text-xl font-semibold">{customer.email}</h1>
        <div className="flex flex-wrap items-center gap-2">
          <Link href={`/accounts/${accountId}/subscriptions?new=1&customer=${encodeURIComponent(customer.id)}`} className={linkClass}>
            New subscription
          </Link>
          <Link href={`/accounts/${accountId}/invoices?new=1&customer=${encodeURIComponent(customer.id)}`} className={linkClass}>
            New invoice
          </Link>
          <Link href={eventsHref(accountId, { aggregate_id: customer.id })} className={linkClass}>
            View timeline
          </Link>
        </div>
      </div>
      <div className="space-y-4">
        <EditCustomer accountId={accountId} customer={customer} />
        <Card title="Customer">
          <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-2 lg:grid-cols-3">
            <DetailItem label="Id">
              <span className="flex flex-wrap items-center gap-2">
                <code data-testid="customer-id" className="break-all font-mono text-xs">
                  {customer.id}
                </code>
                <CopyButton value={customer.id} label="Copy id" />
              </span>
            </DetailItem>
            <DetailItem label="Email">
              <span className="break-all">{customer.email}</span>
            </DetailItem>
            <DetailItem label="Name">{customer.name ?? <span className="text-slate-600">—</span>}</DetailItem>
            <DetailItem label="Address">
              {customer.address ? (
                <span data-testid="customer-address" className="whitespace-pre-line">
                  {[customer.address.line1, customer.address.line2, `${customer.address.postal_code} ${customer.address.city}`, customer.address.country].filter(Boolean).join("\n")}
                </span>
              ) : (
                <span className="text-slate-600">—</span>
              )}
            </DetailItem>
            <DetailItem label="VAT ids">
              {customer.tax_ids.length > 0 ? <span data-testid="customer-tax-ids">{customer.tax_ids.map((taxId) => taxId.value).join(", ")}</span> : <span className="text-slate-600">—</span>}
            </DetailItem>
            <DetailItem label="Currency">
              {customer.currency ? (
                <span data-testid="customer-currency">{customer.currency.toUpperCase()}</span>
              ) : (
                <span className="text-slate-600">Set by their first invoice or subscription</span>
              )}
            </DetailItem>
            <DetailItem label="Invoice language">{customer.preferred_locale ?? "The account's default"}</DetailItem>
            <DetailItem label="Also send invoices to">
              {customer.invoice_emails.length > 0 ? <span data-testid="customer-invoice-emails">{customer.invoice_emails.join(", ")}</span> : <span className="text-slate-600">—</span>}
            </DetailItem>
            <DetailItem label="Livemode">{customer.livemode ? "true (live)" : "false (sandbox)"}</DetailItem>
            <DetailItem label="Created">
              <Time iso={customer.created} />
            </DetailItem>
            <DetailItem label="Updated">
              <Time iso={customer.updated} />
            </DetailItem>
          </dl>
        </Card>
        <CustomerBalance accountId={accountId} customerId={customer.id} balances={customer.balances} />
        <CustomerCreditGrants accountId={accountId} customerId={customer.id} />
        <CustomerEntitlements accountId={accountId} customerId={customer.id} />
        <CustomerPaymentMethods accountId={accountId} customerId={customer.id} defaultPaymentMethod={customer.default_payment_method} />
        <CustomerPortalLink accountId={accountId} customerId={customer.id} />
        <CustomerUsage accountId={accountId} customerId={customer.id} />
        <CustomerAlerts accountId={accountId} customerId={customer.id} />
        {/* The related lists keep their page and filter in the URL (useSearchParams). */}
        <Suspense fallback={<Loading what="Loading related lists" />}>
          <CustomerRelations accountId={accountId} customerId={customer.id} />
        </Suspense>
        <Card title="Metadata">
          <KeyValues values={customer.metadata} empty="No metadata." />
        </Card>
        <Card title="Custom fields">
          <KeyValues values={customer.custom_fields ?? {}} empty="No custom fields." />
        </Card>
      </div>
    </>
  );
}

function KeyValues({ values, empty }: { values: Record<string, string>; empty: string }) {
  const entries = Object.entries(values).sort(([a], [b]) => a.localeCompare(b));
  if (entries.length === 0) return <p className="text-sm text-slate-600">{empty}</p>;
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[minmax(0,12rem)_minmax(0,1fr)]">
      {entries.map(([key, value]) => (
        <div key={key} className="contents">
          <dt className="break-all font-mono text-xs text-slate-500 sm:pt-0.5">{key}</dt>
          <dd className="min-w-0 whitespace-pre-wrap break-all">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
