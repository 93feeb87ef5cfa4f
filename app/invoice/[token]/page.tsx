import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { HostedPayForm } from "@/components/invoices/hosted-pay-form";
import { StripePaymentForm } from "@/components/payments/stripe-payment-form";
import { ServiceError } from "@/lib/errors";
import { getHostedInvoice } from "@/lib/invoices/hosted";
import { hostedInvoiceCollector, settleHostedInvoiceReturn } from "@/lib/invoices/hosted-collection";
import { HOSTED_LABELS, LABELS } from "@/lib/invoices/pdf/labels";
import { dateTimeFormat } from "@/lib/intl";
import { formatAtoms } from "@/lib/money";
import { operationPath } from "@/lib/operation-paths";
import { startHostedInvoicePaymentAction } from "./actions";

export const metadata: Metadata = { title: "Invoice", robots: { index: false, follow: false }, referrer: "no-referrer" };
// Always the invoice as it stands now (paid or not).
export const dynamic = "force-dynamic";

/** The hosted invoice page: public, reached by the invoice's `hosted_invoice_url` (the random token is the capability). */
export default async function HostedInvoicePage({
  params,
  searchParams,
}: {
  params: Promise<{ token: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { token } = await params;
  let invoice = await getHostedInvoice(token);
  if (!invoice) notFound();
  // Every word in the invoice's language: the document's labels, and the page's own.
  const t = LABELS[invoice.locale];
  const h = HOSTED_LABELS[invoice.locale];
  // Stripe.js's return (`?payment_intent=pi_…`): the payment re-read at Stripe and applied, once
  // whether this or Stripe's webhook comes first; never the browser's `redirect_status` alone.
  const query = await searchParams;
  let returned: string | null = null;
  if (invoice.status === "open" && typeof query.payment_intent === "string") {
    try {
      await settleHostedInvoiceReturn({ token, reference: query.payment_intent });
    } catch (error) {
      // Stripe unreachable for now: its webhook settles the payment.
      if (!(error instanceof ServiceError)) throw error;
    }
    invoice = (await getHostedInvoice(token))!;
    if (invoice.status === "open") returned = query.redirect_status === "failed" ? h.declined : h.processing;
  }
  const publishableKey = invoice.status === "open" ? await hostedInvoiceCollector(invoice.accountId) : null;
  const money = (atoms: number) => formatAtoms(atoms, invoice.currency, invoice.locale);
  const date = (iso: string) => dateTimeFormat(invoice.locale, { dateStyle: "long", timeZone: "UTC" }).format(new Date(iso));
  return (
    <main lang={invoice.locale} className="mx-auto max-w-2xl px-4 py-10">
      {!invoice.livemode && (
        <p role="status" className="mb-4 rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          {h.sandboxBanner}
        </p>
      )}
      <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <p className="text-sm text-slate-500">{invoice.sellerName}</p>
        <h1 className="mb-1 text-xl font-semibold">
          {t.invoice} {invoice.number}
        </h1>
        <p className="mb-4 text-sm text-slate-600">
          {t.issued}: {date(invoice.issued)}
          {invoice.dueDate && ` · ${t.due}: ${date(invoice.dueDate)}`} · {t.status}:{" "}
          <span data-testid="invoice-status" data-status={invoice.status}>
            {h.statuses[invoice.status as keyof typeof h.statuses] ?? invoice.status}
          </span>
        </p>
        <p className="mb-4 text-sm">
          {t.buyer}: {invoice.buyerName ? `${invoice.buyerName} · ` : ""}
          {invoice.buyerEmail}
        </p>
        <table className="w-full text-sm" aria-label={t.description}>
          <thead>
            <tr className="text-left text-slate-500">
              <th scope="col">{t.description}</th>
              <th scope="col" className="text-right">
                {t.quantity}
              </th>
              <th scope="col" className="text-right">
                {t.amount}
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {invoice.lines.map((line, index) => (
              <tr key={index}>
                <td className="py-2 pr-2">
                  <span className="font-medium">{line.title}</span>
                  {line.detail && <span className="block text-xs text-slate-500">{line.detail}</span>}
                </td>
                <td className="py-2 text-right tabular-nums">{line.quantity}</td>
                <td className="whitespace-nowrap py-2 text-right tabular-nums">{money(line.amountAtom)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <dl className="mt-3 space-y-1 border-t border-slate-200 pt-3 text-sm">
          <div className="flex justify-between">
            <dt>{t.subtotal}</dt>
            <dd className="tabular-nums">{money(invoice.subtotalAtom)}</dd>
          </div>
          {invoice.discountAtom > 0 && (
            <div className="flex justify-between">
              <dt>{t.discount}</dt>
              <dd className="tabular-nums">{money(-invoice.discountAtom)}</dd>
            </div>
          )}
          {invoice.taxes.map((tax, index) => (
            <div key={index} className="flex justify-between">
              <dt>
                {tax.name}
                {tax.inclusive ? ` (${t.inclusive})` : ""}
              </dt>
              <dd className="tabular-nums">{money(tax.amountAtom)}</dd>
            </div>
          ))}
          {invoice.creditsAppliedAtom > 0 && (
            <div className="flex justify-between">
              <dt>{t.creditsApplied}</dt>
              <dd className="tabular-nums">{money(-invoice.creditsAppliedAtom)}</dd>
            </div>
          )}
          <div className="flex justify-between font-semibold">
            <dt>{t.total}</dt>
            <dd className="tabular-nums">{money(invoice.totalAtom)}</dd>
          </div>
          <div className="flex justify-between">
            <dt>{t.paid}</dt>
            <dd className="tabular-nums">{money(invoice.paidAtom)}</dd>
          </div>
          <div className="flex justify-between font-semibold">
            <dt>{t.amountDue}</dt>
            <dd data-testid="invoice-due" className="tabular-nums">
              {money(invoice.dueAtom)}
            </dd>
          </div>
        </dl>
        {invoice.reverseCharge && <p className="mt-3 text-xs text-slate-600">{t.reverseCharge}</p>}
        {invoice.footer && <p className="mt-3 text-xs text-slate-600">{invoice.footer}</p>}
        <p className="mt-4">
          <a className="text-sm font-medium text-indigo-700 underline" href={operationPath("getHostedInvoicePdf", { token: invoice.token })} download={`${invoice.number}.pdf`}>
            {t.downloadPdf}
          </a>
        </p>
        {invoice.status === "open" && publishableKey !== null && (
          <div className="mt-6">
            <StripePaymentForm
              publishableKey={publishableKey}
              amountAtom={invoice.dueAtom}
              currency={invoice.currency}
              locale={invoice.locale}
              payLabel={`${t.pay} ${money(invoice.dueAtom)}`}
              labels={{ paying: h.paying, failed: h.failed, offline: h.offline }}
              email={null}
              start={startHostedInvoicePaymentAction.bind(null, invoice.token)}
              returnPath={`/invoice/${invoice.token}`}
              initialError={returned}
            />
          </div>
        )}
        {invoice.status === "open" && publishableKey === null && !invoice.livemode && (
          <HostedPayForm token={invoice.token} payLabel={`${t.pay} ${money(invoice.dueAtom)}`} labels={h} />
        )}
      </div>
    </main>
  );
}
