"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { objectHref } from "@/components/objects/links";

/**
 * One box for the whole dashboard: an object id (`cus_…`, `in_…`, `evt_…`, …) opens that object;
 * anything else lists the customers whose email or name contains it (lib/customers/service.ts).
 */
export function SearchBox({ accountId }: { accountId: string }) {
  const router = useRouter();
  const [value, setValue] = useState("");
  function submit(event: FormEvent) {
    event.preventDefault();
    const text = value.trim();
    if (!text) return;
    const href = /^[a-z]+_[a-z]+_[0-9a-z]+$/.test(text) ? objectHref(accountId, text) : undefined;
    router.push(href ?? `/accounts/${accountId}/customers?q=${encodeURIComponent(text)}`);
  }
  return (
    <form role="search" onSubmit={submit} className="w-full sm:w-64">
      <input
        type="search"
        aria-label="Search"
        placeholder="Search id, email or name"
        value={value}
        onChange={(event) => setValue(event.target.value)}
        className="w-full rounded border border-slate-300 px-2 py-1 text-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500"
      />
    </form>
  );
}
