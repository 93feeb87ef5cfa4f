import Link from "next/link";
import type { ReactNode } from "react";
import type { OrganizationAccount } from "@/lib/auth/users";
import type { Role } from "@/lib/teams/roles";
import { AccountSwitcher } from "./account-switcher";
import { NavLinks } from "./nav-links";
import { RoleProvider } from "./role";
import { SearchBox } from "./search-box";
import { SignOutButton } from "./sign-out-button";

/** The frame of every dashboard page: navigation, the account switcher, and the sandbox marker. */
export function DashboardShell({
  account,
  accounts,
  userEmail,
  role,
  children,
}: {
  account: OrganizationAccount;
  accounts: OrganizationAccount[];
  userEmail: string;
  role: Role;
  children: ReactNode;
}) {
  const base = `/accounts/${account.id}`;
  return (
    <div className="min-h-screen">
      {!account.livemode && (
        <div role="status" className="bg-amber-400 px-4 py-1 text-center text-sm font-medium text-amber-950">
          Sandbox account: test data, no real money moves.
        </div>
      )}
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
          <Link href={base} className="font-semibold text-slate-900">
            Billing
          </Link>
          <NavLinks base={base} />
          <div className="ml-auto flex items-center gap-3">
            <SearchBox accountId={account.id} />
            <AccountSwitcher current={account} accounts={accounts} />
            <span className="hidden text-sm text-slate-500 md:inline">{userEmail}</span>
            <SignOutButton />
          </div>
        </div>
      </header>
      <main className="mx-auto max-w-6xl px-4 py-6">
        <RoleProvider role={role}>{children}</RoleProvider>
      </main>
    </div>
  );
}
