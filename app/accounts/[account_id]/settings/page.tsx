import type { Metadata } from "next";
import { ChangePasswordForm } from "@/components/settings/change-password-form";
import { PageHeader } from "@/components/ui";

export const metadata: Metadata = { title: "Settings · Billing Service" };

/** The layout has already checked the session. The password is the user's, not the account's. */
export default function Page() {
  return (
    <>
      <PageHeader title="Settings" />
      <ChangePasswordForm />
    </>
  );
}
