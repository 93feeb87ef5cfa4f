export function customersHref(accountId: string): string {
  return `/accounts/${accountId}/customers`;
}

export function customerHref(accountId: string, customerId: string): string {
  return `/accounts/${accountId}/customers/${encodeURIComponent(customerId)}`;
}

/** react-query keys shared by the customer pages. */
export const customerQueryKeys = {
  customers: (accountId: string) => ["customers", accountId] as const,
  customer: (accountId: string, customerId: string) => ["customers", accountId, "one", customerId] as const,
};
