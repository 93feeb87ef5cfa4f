"use client";

import { usePathname, useRouter } from "next/navigation";
import type { OrganizationAccount } from "@/lib/auth/users";

/** Switches account, staying on the same section (tokens, webhooks, events). */
export function AccountSwitcher({ current, accounts }: { current: OrganizationAccount; accounts: OrganizationAccount[] }) {
  const router = useRouter();
  const pathname = usePathname();
  const section = pathname.split("/")[3] ?? "";
  return (
    <label className="flex min-w-0 items-center gap-2 text-sm">
      <span className="sr-only md:not-sr-only">Account</span>
      <select
        aria-label="Account"
        className={`max-w-44 min-w-0 rounded border px-2 py-1 md:max-w-none ${current.livemode ? "border-slate-300" : "border-amber-500 bg-amber-50"}`}
        value={current.id}
        onChange={(event) => router.push(`/accounts/${event.target.value}${section ? `/${section}` : ""}`)}
      >
        {accounts.map((account) => (
          <option key={account.id} value={account.id}>
            {account.livemode ? "Live" : "Sandbox"}: {account.name}
          </option>
        ))}
      </select>
    </label>
  );
}
