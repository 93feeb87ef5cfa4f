import type { Metadata } from "next";
import { InvoiceDetail } from "@/components/invoices/invoice-detail";

export async function generateMetadata({ params }: { params: Promise<{ invoice_id: string }> }): Promise<Metadata> {
  const { invoice_id } = await params;
  return { title: `${invoice_id} · Invoices · Billing Service` };
}

/** The layout has already checked the session and that the account is the user's. */
export default async function InvoicePage({ params }: { params: Promise<{ account_id: string; invoice_id: string }> }) {
  const { account_id, invoice_id } = await params;
  return <InvoiceDetail accountId={account_id} invoiceId={invoice_id} />;
}
