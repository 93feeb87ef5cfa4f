import type { Metadata } from "next";
import { Suspense } from "react";
import { InvoiceList } from "@/components/invoices/invoice-list";
import { Loading, PageHeader } from "@/components/ui";
import { CreateInvoice } from "@/components/invoices/create-invoice";

export const metadata: Metadata = { title: "Invoices · Billing Service" };

/** The layout has already checked the session and that the account is the user's. */
export default async function InvoicesPage({
  params,
  searchParams,
}: {
  params: Promise<{ account_id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { account_id } = await params;
  // A customer's page links here with ?new=1&customer=cus_… to open the form for them.
  const { new: openForm, customer } = await searchParams;
  return (
    <>
      <PageHeader title="Invoices">
        <CreateInvoice accountId={account_id} open={openForm === "1"} customer={typeof customer === "string" ? customer : undefined} />
      </PageHeader>
      {/* InvoiceList reads the page and filter from the URL (useSearchParams), which needs a Suspense boundary. */}
      <Suspense fallback={<Loading what="Loading invoices" />}>
        <InvoiceList accountId={account_id} />
      </Suspense>
    </>
  );
}
