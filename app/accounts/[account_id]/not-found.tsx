"use client";

import Link from "next/link";
import { useParams } from "next/navigation";

/** A page of this account that does not exist, shown inside the dashboard frame. */
export default function AccountNotFound() {
  const { account_id } = useParams<{ account_id: string }>();
  return (
    <>
      <h1 className="mb-2 text-xl font-semibold">Page not found</h1>
      <p className="text-sm text-slate-700">This account has no page at this address. Use the navigation above or the search box.</p>
      <p className="mt-4 text-sm">
        <Link href={`/accounts/${account_id}`} className="text-indigo-700 underline hover:text-indigo-900">
          Back to the overview
        </Link>
      </p>
    </>
  );
}
