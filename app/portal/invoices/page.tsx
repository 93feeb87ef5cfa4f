import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { PortalShell } from "@/components/portal/shell";
import { dateTimeFormat } from "@/lib/intl";
import { formatAtoms } from "@/lib/money";
import { portalInvoices } from "@/lib/portal/view";
import { portalPage } from "../_lib/portal";

export const metadata: Metadata = { title: "Invoices", robots: { index: false, follow: false } };
export const dynamic = "force-dynamic";

const date = (iso: string) => dateTimeFormat("en", { dateStyle: "medium", timeZone: "UTC" }).format(new Date(iso));

/** The customer's invoices (finalized ones): status, amount, and the PDF. */
export default async function PortalInvoicesPage() {
  const { session, settings, returnUrl } = await portalPage();
  if (!settings.features.invoice_history.enabled) notFound();
  const invoices = await portalInvoices(session);
  return (
    <PortalShell settings={settings} returnUrl={returnUrl}>
      <h1 className="mb-4 text-xl font-semibold">Invoices</h1>
      {invoices.length === 0 && <p className="text-sm text-slate-600">No invoices yet.</p>}
      <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
        {invoices.map((invoice) => (
          <li key={invoice.id} className="flex flex-wrap items-center justify-between gap-2 p-3 text-sm" data-testid="portal-invoice" data-id={invoice.id}>
            <span>
              <span className="font-medium">{invoice.number}</span>
              <span className="block text-slate-600">{date(invoice.issued)}</span>
            </span>
            <span className="tabular-nums">{formatAtoms(invoice.totalAtom, invoice.currency, "en")}</span>
            <span className="rounded bg-slate-100 px-2 py-0.5" data-testid="invoice-status">
              {invoice.status}
            </span>
            {invoice.payUrl && (
              <a href={invoice.payUrl} className="font-medium text-indigo-700 underline" data-testid="invoice-pay">
                Pay {formatAtoms(invoice.dueAtom, invoice.currency, "en")}
              </a>
            )}
            {invoice.hasPdf && (
              <a href={`/portal/invoices/${invoice.id}/pdf`} className="text-indigo-700 underline" data-testid="invoice-pdf" download>
                Download PDF
              </a>
            )}
          </li>
        ))}
      </ul>
    </PortalShell>
  );
}
