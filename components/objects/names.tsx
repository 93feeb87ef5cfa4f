"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { dashboardCall } from "@/components/api-client";
import { customerHref } from "@/components/customers/format";
import { amountOf, tierPartsOf } from "@/lib/prices/amount";
import { tierRangeText } from "@/lib/prices/tiers";
import { formatMoney } from "@/components/invoices/format";
import { priceLabel, priceName, priceTerms, str, type ApiObject } from "./labels";
import { ObjectLink, Truncated } from "./links";
import { OBJECT_READS } from "./reads";
import { ID_PREFIXES } from "@/lib/id-prefixes";

// Names are looked up once per id and kept for the session: lists of 25 rows share few customers
// and prices, and a name changing under an open list is harmless.
const NAME_CACHE = { staleTime: 5 * 60_000, gcTime: 30 * 60_000 };

/** The collections names are read from, each by its get operation. */
const NAME_READS = {
  customers: (accountId: string, id: string): Promise<ApiObject> => dashboardCall("getCustomer", { path: { account_id: accountId, customer_id: id } }),
  products: OBJECT_READS.products.get,
  prices: OBJECT_READS.prices.get,
  tax_rates: (accountId: string, id: string): Promise<ApiObject> => dashboardCall("getTaxRate", { path: { account_id: accountId, tax_rate_id: id } }),
  subscriptions: (accountId: string, id: string): Promise<ApiObject> =>
    dashboardCall("getSubscription", { path: { account_id: accountId, subscription_id: id } }),
};
type NamedCollection = keyof typeof NAME_READS;

function useObject(accountId: string, collection: NamedCollection | "", id: string) {
  return useQuery({
    queryKey: ["names", accountId, collection, id],
    queryFn: () => NAME_READS[collection as NamedCollection](accountId, id),
    enabled: id !== "" && collection !== "",
    ...NAME_CACHE,
  });
}

/** A customer by name (or email), linked to their page; the id on hover and until it loads. */
export function CustomerName({ accountId, id }: { accountId: string; id: string }) {
  const { data } = useObject(accountId, "customers", id);
  const label = typeof data?.name === "string" && data.name ? data.name : typeof data?.email === "string" ? data.email : id;
  const email = typeof data?.email === "string" && label !== data.email ? data.email : undefined;
  return (
    <Link href={customerHref(accountId, id)} className="text-indigo-700 underline hover:text-indigo-900" title={id}>
      <Truncated text={label} className={label === id ? "font-mono text-xs" : ""} />
      {email && <Truncated text={email} className="text-xs text-slate-500" />}
    </Link>
  );
}

/** "USt. 19 %": a tax rate's display name and percentage. */
export function taxRateLabel(rate: { display_name: string; percentage: number }): string {
  return `${rate.display_name} ${rate.percentage.toLocaleString("en-US", { maximumFractionDigits: 4 })} %`;
}

/** A tax rate by its display name and percentage; the id on hover and until it loads. */
export function TaxRateName({ accountId, id }: { accountId: string; id: string }) {
  const { data } = useObject(accountId, "tax_rates", id);
  const name = typeof data?.display_name === "string" && typeof data.percentage === "number" ? taxRateLabel({ display_name: data.display_name, percentage: data.percentage }) : null;
  return name ? <span title={id}>{name}</span> : <Truncated text={id} className="font-mono text-xs" />;
}

/** What a person reads for an object: a product's name, a price's nickname and amount. */
function useObjectName(accountId: string, id: string): string | undefined {
  const path = id.startsWith(ID_PREFIXES.product) ? "products" : id.startsWith(ID_PREFIXES.price) ? "prices" : "";
  const { data } = useObject(accountId, path, path ? id : "");
  if (!data) return undefined;
  return path === "prices" ? priceName(data) : str(data, "name");
}

/**
 * Any id a person reads, as a link named for what it is: customers by name or email, products by
 * name, prices by nickname and amount; other ids as themselves. The id stays on hover.
 */
export function NamedLink({ accountId, id }: { accountId: string; id: unknown }) {
  const key = typeof id === "string" ? id : "";
  const name = useObjectName(accountId, key);
  if (key.startsWith(ID_PREFIXES.customer)) return <CustomerName accountId={accountId} id={key} />;
  if (!name) return <ObjectLink accountId={accountId} id={id} />;
  return (
    <span title={key}>
      <ObjectLink accountId={accountId} id={key}>
        <Truncated text={name} />
      </ObjectLink>
    </span>
  );
}

/**
 * A subscription's title: "Ada Lovelace · Pro plan" (the customer's name or email and the first
 * item's product, "+ 2 more" when it has more); the id until the names load.
 */
export function SubscriptionTitle({ accountId, subscription }: { accountId: string; subscription: { id: string; customer: string; items: { price: string }[] } }) {
  const customer = useObject(accountId, "customers", subscription.customer).data;
  const what = useSubscriptionPlan(accountId, subscription.items);
  const who = customer ? (str(customer, "name") || str(customer, "email")) : undefined;
  if (!who || !what) return <span>Subscription</span>;
  return (
    <span title={subscription.id}>
      {who} · {what}
    </span>
  );
}

/** What a subscription is for: its first item's product, "+ 2 more" when it has more; undefined until the names load. */
function useSubscriptionPlan(accountId: string, items: readonly { price: string }[]): string | undefined {
  const price = useObject(accountId, "prices", items[0]?.price ?? "").data;
  const product = useObject(accountId, "products", price ? (str(price, "product") ?? "") : "").data;
  const what = product ? str(product, "name") : undefined;
  if (!what) return undefined;
  return items.length > 1 ? `${what} + ${items.length - 1} more` : what;
}

/** A subscription named by what it is for ("Pro plan"), for a link's label; "Subscription" until the names load. */
export function SubscriptionPlanName({ accountId, items }: { accountId: string; items: readonly { price: string }[] }) {
  return <Truncated text={useSubscriptionPlan(accountId, items) ?? "Subscription"} />;
}

/** A subscription by id, read and linked by what it is for; its id beside, to copy, never the label. */
export function SubscriptionLink({ accountId, id }: { accountId: string; id: string }) {
  const subscription = useObject(accountId, "subscriptions", id).data;
  const items = Array.isArray(subscription?.items) ? (subscription.items as { price: string }[]) : [];
  return (
    <span className="inline-flex min-w-0 flex-col">
      <ObjectLink accountId={accountId} id={id}>
        <SubscriptionPlanName accountId={accountId} items={items} />
      </ObjectLink>
      <span className="break-all font-mono text-xs text-slate-500">{id}</span>
    </span>
  );
}

/** "Coffee beans · $12.50 / month × 2": the product, the price and the quantity of one item. */
export function PlanSummary({ accountId, priceId, quantity }: { accountId: string; priceId: string; quantity: number }) {
  const price = useObject(accountId, "prices", priceId).data;
  const productId = price ? (str(price, "product") ?? "") : "";
  const product = useObject(accountId, "products", productId).data;
  if (!price) return <Truncated text={priceId} className="font-mono text-xs" />;
  const name = product && str(product, "name") ? `${str(product, "name")} · ` : "";
  const nickname = str(price, "nickname");
  const label = `${name}${nickname ? `${nickname} · ` : ""}${priceLabel(price)}`;
  // A tiered price's quantity costs its tiers' amount (amountOf), which the label cannot say.
  const terms = priceTerms(price);
  const tiered = terms?.billingScheme === "tiered" ? ` (${formatMoney(Number(amountOf(terms, quantity)), str(price, "currency") ?? "usd")})` : "";
  return <Truncated text={`${label}${quantity > 1 || tiered ? ` × ${quantity}${tiered}` : ""}`} />;
}

/**
 * An invoice line's unit price: the line's own for a per-unit price or a custom line; for a tiered
 * price, which has no single unit price (the line's `unit_amount_atom` is 0), "Tiered" and the
 * tiers that price the quantity (units × unit amount + flat fee), as the invoice PDF prints them.
 */
export function LineUnitPrice({ accountId, line, currency }: { accountId: string; line: { price: string | null; quantity: number; unit_amount_atom: number }; currency: string }) {
  const price = useObject(accountId, line.price ? "prices" : "", line.price ?? "").data;
  const terms = price ? priceTerms(price) : null;
  const parts = terms ? tierPartsOf(terms, line.quantity) : null;
  const money = (atoms: number) => formatMoney(atoms, currency);
  // Until the price is read, a 0 of a priced line may be a tiered one's: say nothing rather than "0.00".
  if (!parts) return <span className="tabular-nums">{line.price && !price && line.unit_amount_atom === 0 ? "—" : money(line.unit_amount_atom)}</span>;
  return (
    <span className="block" data-testid="tier-breakdown">
      <span className="block">Tiered</span>
      {parts.map((part) => (
        <span key={part.from} className="block text-xs tabular-nums text-slate-600">
          {tierRangeText(part)}: {part.units} × {money(part.unitAmountAtom)}
          {part.flatAmountAtom > 0 && ` + ${money(part.flatAmountAtom)}`}
        </span>
      ))}
    </span>
  );
}
