"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import { Truncated } from "@/components/ui";
import { ID_PREFIXES } from "@/lib/id-prefixes";

/** Where each kind of id lives in the dashboard (its prefix: lib/id-prefixes.ts). */
const ROUTES: [prefix: string, segment: string][] = [
  [ID_PREFIXES.customer, "customers"],
  [ID_PREFIXES.subscription, "subscriptions"],
  [ID_PREFIXES.invoice, "invoices"],
  [ID_PREFIXES.product, "products"],
  [ID_PREFIXES.price, "prices"],
  [ID_PREFIXES.coupon, "coupons"],
  [ID_PREFIXES.taxRate, "tax-rates"],
  [ID_PREFIXES.paymentIntent, "payment-intents"],
  [ID_PREFIXES.payment, "payments"],
  [ID_PREFIXES.refund, "refunds"],
  [ID_PREFIXES.dispute, "disputes"],
  [ID_PREFIXES.checkoutSession, "checkout-sessions"],
  [ID_PREFIXES.event, "events"],
  [ID_PREFIXES.webhookEndpoint, "webhooks"],
  [ID_PREFIXES.request, "logs"],
  [ID_PREFIXES.meter, "meters"],
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
