"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { apiFetch } from "@/components/api-client";
import { customerHref } from "@/components/customers/format";
import { priceLabel, type ApiObject } from "./kinds";
import { Truncated } from "./links";

// Names are looked up once per id and kept for the session: lists of 25 rows share few customers
// and prices, and a name changing under an open list is harmless.
const NAME_CACHE = { staleTime: 5 * 60_000, gcTime: 30 * 60_000 };

function useObject(accountId: string, path: string, id: string) {
  return useQuery({
    queryKey: ["names", accountId, path, id],
    queryFn: () => apiFetch<ApiObject>(`/${accountId}/${path}/${encodeURIComponent(id)}`),
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

/** "Coffee beans · $12.50 / month × 2": the product, the price and the quantity of one item. */
export function PlanSummary({ accountId, priceId, quantity }: { accountId: string; priceId: string; quantity: number }) {
  const price = useObject(accountId, "prices", priceId).data;
  const productId = typeof price?.product === "string" ? price.product : "";
  const product = useQuery({
    queryKey: ["names", accountId, "products", productId],
    queryFn: () => apiFetch<ApiObject>(`/${accountId}/products/${encodeURIComponent(productId)}`),
    enabled: productId !== "",
    ...NAME_CACHE,
  }).data;
  if (!price) return <Truncated text={priceId} className="font-mono text-xs" />;
  const name = typeof product?.name === "string" ? `${product.name} · ` : "";
  return <Truncated text={`${name}${priceLabel(price)}${quantity > 1 ? ` × ${quantity}` : ""}`} />;
}
