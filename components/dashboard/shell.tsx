import Link from "next/link";
import type { ReactNode } from "react";
import type { OrganizationAccount } from "@/lib/auth/users";
import type { Role } from "@/lib/auth/roles";
import { AccountSwitcher } from "./account-switcher";
import { NavLinks } from "./nav-links";
import { RoleProvider } from "./role";
import { SearchBox } from "./search-box";
import { SignOutButton } from "./sign-out-button";

/**
 * The frame of every dashboard page: navigation, search, the account switcher, and the sandbox
 * marker. Below `md` (a phone) it is a compact bar, the navigation behind a Menu button and the
 * search box on its own full-width row, so the header stays under 120 px (e2e/phone.spec.ts).
 */
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
        <div role="status" className="bg-amber-400 px-4 py-0.5 text-center text-xs font-medium text-amber-950 md:py-1 md:text-sm">
          Sandbox account: test data, no real money moves.
        </div>
      )}
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-3 gap-y-2 px-4 py-2 md:gap-x-6 md:py-3">
          <Link href={base} className="font-semibold text-slate-900">
            Billing
          </Link>
          <NavLinks base={base}>
            <SignOutButton />
          </NavLinks>
          <div className="order-9 basis-full md:order-none md:ml-auto md:basis-auto">
            <SearchBox accountId={account.id} />
          </div>
          <div className="ml-auto flex min-w-0 items-center gap-3 md:ml-0">
            <AccountSwitcher current={account} accounts={accounts} />
            <span className="hidden text-sm text-slate-500 md:inline">{userEmail}</span>
            <span className="hidden md:inline">
              <SignOutButton />
            </span>
          </div>
        </div>
      </header>
      <main className="mx-auto max-w-6xl px-4 py-6">
        <RoleProvider role={role}>{children}</RoleProvider>
      </main>
    </div>
  );
}
