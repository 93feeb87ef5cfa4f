import type { Metadata } from "next";
import { CreditGrantsSection } from "@/components/credits/credit-grants";
import { PageHeader } from "@/components/ui";

export const metadata: Metadata = { title: "Credits · Billing Service" };

/** The layout has already checked the session and that the account is the user's. */
export default async function CreditsPage({ params }: { params: Promise<{ account_id: string }> }) {
  const { account_id } = await params;
  return (
    <>
      <PageHeader title="Credits" />
      <CreditGrantsSection accountId={account_id} />
    </>
  );
}
