import type { Metadata } from "next";
import { CustomerDetail } from "@/components/customers/customer-detail";

export async function generateMetadata({ params }: { params: Promise<{ customer_id: string }> }): Promise<Metadata> {
  const { customer_id } = await params;
  return { title: `${customer_id} · Customers · Billing Service` };
}

/** The layout has already checked the session and that the account is the user's. */
export default async function CustomerPage({ params }: { params: Promise<{ account_id: string; customer_id: string }> }) {
  const { account_id, customer_id } = await params;
  return <CustomerDetail accountId={account_id} customerId={customer_id} />;
}
