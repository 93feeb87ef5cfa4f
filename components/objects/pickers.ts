"use client";

import { useQuery } from "@tanstack/react-query";
import { dashboardCall } from "@/components/api-client";
import { priceLabel } from "./labels";

type Option = { value: string; label: string };

// The newest 100 (the API's page limit) make a picker; a customer beyond them is reached from
// their own page, whose "New subscription"/"New invoice" links name them in the URL.
const PICK_LIMIT = 100;

/** A picker's list, cached under `["pickers", accountId, collection, …]` for half a minute. */
function useList<T>(key: readonly unknown[], read: () => Promise<T>) {
  return useQuery({ queryKey: ["pickers", ...key], queryFn: read, staleTime: 30_000 });
}

/** Customers as "Name <email>" options; `include` (from the URL) is added when not among them. */
export function useCustomerOptions(accountId: string, include?: string) {
  const list = useList([accountId, "customers"], () => dashboardCall("listCustomers", { path: { account_id: accountId }, query: { limit: PICK_LIMIT } }));
  const options: Option[] = (list.data?.items ?? []).map((customer) => ({
    value: customer.id,
    label: customer.name ? `${String(customer.name)} <${String(customer.email)}>` : String(customer.email),
  }));
  if (include && !options.some((option) => option.value === include)) options.unshift({ value: include, label: include });
  return { options, isPending: list.isPending, error: list.error };
}

/** Active prices as "Product · $12.50 / month" options, optionally only recurring ones. */
export function usePriceOptions(accountId: string, type?: "recurring") {
  const prices = useList([accountId, "prices", type], () =>
    dashboardCall("listPrices", { path: { account_id: accountId }, query: { limit: PICK_LIMIT, active: "true", ...(type ? { type } : {}) } }),
  );
  const products = useList([accountId, "products"], () => dashboardCall("listProducts", { path: { account_id: accountId }, query: { limit: PICK_LIMIT } }));
  const names = new Map((products.data?.items ?? []).map((product) => [product.id, String(product.name)]));
  const options: Option[] = (prices.data?.items ?? []).map((price) => {
    const product = names.get(String(price.product));
    const nickname = price.nickname ? ` (${String(price.nickname)})` : "";
    return { value: price.id, label: `${product ? `${product} · ` : ""}${priceLabel(price)}${nickname}` };
  });
  // Each price's currency, for forms whose currency follows the picked price.
  const currencyOf = new Map((prices.data?.items ?? []).map((price) => [price.id, String(price.currency)]));
  return { options, currencyOf, isPending: prices.isPending || products.isPending, error: prices.error ?? products.error };
}

/** A whole number typed in a form, sent as a number; anything else is sent as typed for the API to name. */
export function toInteger(value: string): number | string {
  const trimmed = value.trim();
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
}
