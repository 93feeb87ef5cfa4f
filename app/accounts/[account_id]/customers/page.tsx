import type { Metadata } from "next";
import { Suspense } from "react";
import { CreateCustomer } from "@/components/customers/customer-forms";
import { CustomerList } from "@/components/customers/customer-list";
import { Loading, PageHeader } from "@/components/ui";

export const metadata: Metadata = { title: "Customers · Billing Service" };

/** The layout has already checked the session and that the account is the user's. */
export default async function CustomersPage({ params }: { params: Promise<{ account_id: string }> }) {
  const { account_id } = await params;
  return (
    <>
      <PageHeader title="Customers">
        <CreateCustomer accountId={account_id} />
      </PageHeader>
      {/* CustomerList reads the page from the URL (useSearchParams), which needs a Suspense boundary. */}
      <Suspense fallback={<Loading what="Loading customers" />}>
        <CustomerList accountId={account_id} />
      </Suspense>
    </>
  );
}
