"use client";

import type { ReactNode } from "react";
import { Time } from "@/components/events/bits";
import { StatusBadge } from "@/components/ui";
import { amountOffLabel, money, num, priceLabel, priceName, str, type ApiObject } from "./labels";
import { ObjectLink, Truncated } from "./links";
import { NamedLink, taxRateLabel } from "./names";
import { OBJECT_READS, type ObjectReads } from "./reads";
import { KIND_TITLE } from "./titles";
import { CHECKOUT_STATUSES } from "@/lib/checkout/statuses";
import { PAYMENT_INTENT_STATUSES } from "@/lib/payments/statuses";
import { disputeStatusWords } from "@/lib/disputes/statuses";

export { money, priceLabel, type ApiObject };

/** "USt. 19 %" for a tax rate object as the API returns it. */
const taxRateName = (o: ApiObject): string => taxRateLabel({ display_name: str(o, "display_name") ?? o.id, percentage: num(o, "percentage") ?? 0 });

export type Filter = { key: string; label: string; options?: readonly string[]; placeholder?: string };
export type Column = { label: string; cell: (object: ApiObject, accountId: string) => ReactNode };

/** One kind of billing object the generic list and detail pages show (products, refunds…). */
export type ObjectKind = {
  /** The dashboard URL segment, e.g. `payment-intents`. */
  slug: string;
  title: string;
  noun: string;
  /** Its list and one object, as API operations. */
  reads: ObjectReads;
  filters: Filter[];
  columns: Column[];
  /** What names the object on its detail page. */
  name: (object: ApiObject) => string;
  empty: string;
  /** Lists of other kinds that belong to one object, shown on its page: `key` filters them to it. */
  related?: { slug: string; key: string; title: string }[];
};

const idColumn = (label = "Id"): Column => ({ label, cell: (o, a) => <ObjectLink accountId={a} id={o.id} /> });
const createdColumn: Column = { label: "Created", cell: (o) => <Time iso={str(o, "created")} /> };
const statusColumn = (key = "status", label = "Status"): Column => ({
  label,
  cell: (o) => <StatusBadge status={str(o, key) ?? ""} />,
});
const activeColumn: Column = {
  label: "Status",
  cell: (o) => <StatusBadge status={o.active ? "active" : "archived"} label={o.active ? "active" : "archived"} />,
};
// Related objects by name (a customer, a product…), their id on hover.
const linkColumn = (key: string, label: string): Column => ({ label, cell: (o, a) => <NamedLink accountId={a} id={o[key]} /> });
const ACTIVE_FILTER: Filter = { key: "active", label: "Status", options: ["true", "false"] };

export const OBJECT_KINDS: ObjectKind[] = [
  {
    slug: "products",
    title: KIND_TITLE.products,
    noun: "product",
    reads: OBJECT_READS.products,
    filters: [ACTIVE_FILTER],
    columns: [
      { label: "Name", cell: (o, a) => <ObjectLink accountId={a} id={o.id}><Truncated text={str(o, "name") ?? o.id} /></ObjectLink> },
      activeColumn,
      idColumn(),
      createdColumn,
    ],
    name: (o) => str(o, "name") ?? o.id,
    empty: "No products yet.",
    related: [{ slug: "prices", key: "product", title: "Prices" }],
  },
  {
    slug: "prices",
    title: KIND_TITLE.prices,
    noun: "price",
    reads: OBJECT_READS.prices,
    filters: [{ key: "product", label: "Product", placeholder: "prod_…" }, ACTIVE_FILTER, { key: "type", label: "Type", options: ["one_time", "recurring"] }],
    columns: [
      { label: "Price", cell: (o, a) => <ObjectLink accountId={a} id={o.id}>{priceLabel(o)}</ObjectLink> },
      { label: "Nickname", cell: (o) => <Truncated text={str(o, "nickname") ?? "—"} /> },
      linkColumn("product", "Product"),
      activeColumn,
      createdColumn,
    ],
    name: (o) => priceName(o),
    empty: "No prices yet.",
  },
  {
    slug: "coupons",
    title: KIND_TITLE.coupons,
    noun: "coupon",
    reads: OBJECT_READS.coupons,
    filters: [],
    columns: [
      { label: "Name", cell: (o, a) => <ObjectLink accountId={a} id={o.id}><Truncated text={str(o, "name") ?? o.id} /></ObjectLink> },
      { label: "Off", cell: (o) => (num(o, "percent_off") !== undefined ? `${num(o, "percent_off")} %` : amountOffLabel(o)) },
      { label: "Duration", cell: (o) => (o.duration === "repeating" ? `${num(o, "duration_in_months")} months` : str(o, "duration")) },
      { label: "Redeemed", cell: (o) => `${num(o, "times_redeemed") ?? 0}${num(o, "max_redemptions") ? ` of ${num(o, "max_redemptions")}` : ""}` },
      createdColumn,
    ],
    name: (o) => str(o, "name") ?? o.id,
    empty: "No coupons yet.",
  },
  {
    slug: "tax-rates",
    title: KIND_TITLE["tax-rates"],
    noun: "tax rate",
    reads: OBJECT_READS["tax-rates"],
    filters: [ACTIVE_FILTER],
    columns: [
      { label: "Name", cell: (o, a) => <ObjectLink accountId={a} id={o.id}>{taxRateName(o)}</ObjectLink> },
      { label: "Applied", cell: (o) => (o.inclusive ? "Included in prices" : "Added to prices") },
      { label: "Country", cell: (o) => str(o, "country") ?? "—" },
      activeColumn,
      createdColumn,
    ],
    name: (o) => taxRateName(o),
    empty: "No tax rates yet.",
  },
  {
    slug: "payment-intents",
    title: KIND_TITLE["payment-intents"],
    noun: "payment intent",
    reads: OBJECT_READS["payment-intents"],
    filters: [
      {
        key: "status",
        label: "Status",
        options: PAYMENT_INTENT_STATUSES,
      },
      { key: "customer", label: "Customer", placeholder: "cus_…" },
    ],
    columns: [
      { label: "Amount", cell: (o, a) => <ObjectLink accountId={a} id={o.id}>{money(o, "amount_atom")}</ObjectLink> },
      statusColumn(),
      linkColumn("customer", "Customer"),
      linkColumn("invoice", "Invoice"),
      createdColumn,
    ],
    name: (o) => `${money(o, "amount_atom")} payment intent`,
    empty: "No payment intents yet.",
  },
  {
    slug: "payments",
    title: KIND_TITLE.payments,
    noun: "payment",
    reads: OBJECT_READS.payments,
    filters: [{ key: "payment_intent", label: "Payment intent", placeholder: "pi_…" }],
    columns: [
      { label: "Amount", cell: (o, a) => <ObjectLink accountId={a} id={o.id}>{money(o, "amount_atom")}</ObjectLink> },
      { label: "Refunded", cell: (o) => money(o, "amount_refunded_atom") },
      statusColumn(),
      linkColumn("payment_intent", "Payment intent"),
      createdColumn,
    ],
    name: (o) => `${money(o, "amount_atom")} payment`,
    empty: "No payments yet.",
    related: [{ slug: "disputes", key: "payment", title: "Disputes" }],
  },
  {
    slug: "refunds",
    title: KIND_TITLE.refunds,
    noun: "refund",
    reads: OBJECT_READS.refunds,
    filters: [{ key: "payment", label: "Payment", placeholder: "py_…" }],
    columns: [
      { label: "Amount", cell: (o, a) => <ObjectLink accountId={a} id={o.id}>{money(o, "amount_atom")}</ObjectLink> },
      statusColumn(),
      { label: "Reason", cell: (o) => str(o, "reason") ?? "—" },
      linkColumn("payment", "Payment"),
      createdColumn,
    ],
    name: (o) => `${money(o, "amount_atom")} refund`,
    empty: "No refunds yet.",
  },
  {
    slug: "disputes",
    title: KIND_TITLE.disputes,
    noun: "dispute",
    reads: OBJECT_READS.disputes,
    filters: [
      { key: "payment", label: "Payment", placeholder: "py_…" },
      { key: "payment_intent", label: "Payment intent", placeholder: "pi_…" },
    ],
    columns: [
      { label: "Amount", cell: (o, a) => <ObjectLink accountId={a} id={o.id}>{money(o, "amount_atom")}</ObjectLink> },
      // Stripe's status in words ("Needs a response", "Lost"…), the status itself on hover.
      { label: "Status", cell: (o) => <span title={str(o, "status")}><StatusBadge status={str(o, "status") ?? ""} label={disputeStatusWords(str(o, "status") ?? "")} /></span> },
      { label: "Reason", cell: (o) => (str(o, "reason") ?? "—").replaceAll("_", " ") },
      { label: "Evidence due", cell: (o) => <Time iso={str(o, "evidence_due_by")} /> },
      linkColumn("payment", "Payment"),
      createdColumn,
    ],
    name: (o) => `${money(o, "amount_atom")} dispute (${disputeStatusWords(str(o, "status") ?? "")})`,
    empty: "No disputes. They appear when a card holder disputes a payment at the connected processor (Stripe).",
  },
  {
    slug: "checkout-sessions",
    title: KIND_TITLE["checkout-sessions"],
    noun: "checkout session",
    reads: OBJECT_READS["checkout-sessions"],
    filters: [
      { key: "status", label: "Status", options: CHECKOUT_STATUSES },
      { key: "customer", label: "Customer", placeholder: "cus_…" },
    ],
    columns: [
      { label: "Total", cell: (o, a) => <ObjectLink accountId={a} id={o.id}>{money(o, "amount_total_atom")}</ObjectLink> },
      { label: "Mode", cell: (o) => str(o, "mode") },
      statusColumn(),
      statusColumn("payment_status", "Payment"),
      { label: "Customer", cell: (o, a) => (o.customer ? <NamedLink accountId={a} id={o.customer} /> : <Truncated text={str(o, "customer_email") ?? "—"} />) },
      createdColumn,
    ],
    name: (o) => `${money(o, "amount_total_atom")} checkout session`,
    empty: "No checkout sessions yet.",
  },
];

export function objectKind(slug: string): ObjectKind | undefined {
  return OBJECT_KINDS.find((kind) => kind.slug === slug);
}
