"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { Truncated } from "@/components/ui";

/** Where each id prefix lives in the dashboard (the prefixes of lib/ids.ts). */
const ROUTES: [prefix: string, segment: string][] = [
  ["cus_", "customers"],
  ["sub_", "subscriptions"],
  ["in_", "invoices"],
  ["prod_", "products"],
  ["price_", "prices"],
  ["cpn_", "coupons"],
  ["pi_", "payment-intents"],
  ["py_", "payments"],
  ["re_", "refunds"],
  ["cs_", "checkout-sessions"],
  ["evt_", "events"],
  ["whe_", "webhooks"],
];

/** The dashboard page of any object id, or undefined for an id the dashboard has no page for. */
export function objectHref(accountId: string, id: string): string | undefined {
  const route = ROUTES.find(([prefix]) => id.startsWith(prefix));
  return route ? `/accounts/${accountId}/${route[1]}/${encodeURIComponent(id)}` : undefined;
}

export { Truncated };

/** A link to an object by id (or a dash for none). */
export function ObjectLink({ accountId, id, children }: { accountId: string; id: unknown; children?: ReactNode }) {
  if (typeof id !== "string" || !id) return <span className="text-slate-500">—</span>;
  const href = objectHref(accountId, id);
  const label = children ?? <Truncated text={id} className="font-mono text-xs" />;
  if (!href) return <>{label}</>;
  return (
    <Link href={href} className="text-indigo-700 underline hover:text-indigo-900">
      {label}
    </Link>
  );
}
