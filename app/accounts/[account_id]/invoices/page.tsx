import type { Metadata } from "next";
import { Suspense } from "react";
import { InvoiceList } from "@/components/invoices/invoice-list";
import { Loading, PageHeader } from "@/components/ui";

export const metadata: Metadata = { title: "Invoices · Billing Service" };

/** The layout has already checked the session and that the account is the user's. */
export default async function InvoicesPage({ params }: { params: Promise<{ account_id: string }> }) {
  const { account_id } = await params;
  return (
    <>
      <PageHeader title="Invoices" />
      {/* InvoiceList reads the page and filter from the URL (useSearchParams), which needs a Suspense boundary. */}
      <Suspense fallback={<Loading what="Loading invoices" />}>
        <InvoiceList accountId={account_id} />
      </Suspense>
    </>
  );
}
