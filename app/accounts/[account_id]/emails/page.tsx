import type { Metadata } from "next";
import { EmailList } from "@/components/emails/email-list";
import { PageHeader } from "@/components/ui";

export const metadata: Metadata = { title: "Emails · Billing Service" };

/** The layout has already checked the session and that the account is the user's. */
export default async function EmailsPage({ params }: { params: Promise<{ account_id: string }> }) {
  const { account_id } = await params;
  return (
    <>
      <PageHeader title="Emails" />
      <EmailList accountId={account_id} />
    </>
  );
}
