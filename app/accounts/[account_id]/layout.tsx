import type { ReactNode } from "react";
import { DashboardShell } from "@/components/dashboard/shell";
import { requireAccount } from "@/app/_lib/session";

export default async function AccountLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ account_id: string }>;
}) {
  const { account_id } = await params;
  const { user, account, accounts } = await requireAccount(account_id);
  return (
    <DashboardShell account={account} accounts={accounts} userEmail={user.email} role={user.role}>
      {children}
    </DashboardShell>
  );
}
