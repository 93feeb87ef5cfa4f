"use client";

import { ExportLink } from "@/components/ui/export-link";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { dashboardCall } from "@/components/api-client";
import { Time } from "@/components/events/bits";
import { eventsHref } from "@/components/events/format";
import { Truncated } from "@/components/objects/links";
import { Card, ErrorBox, Loading, Table } from "@/components/ui";
import { Pager } from "@/components/ui/pager";
import { customerHref, customerQueryKeys } from "./format";
import { operationLine, operationPath } from "@/lib/operation-paths";

const LIMIT = 25;

function readOffset(raw: string | null): number {
  const value = Number(raw);
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}

/**
 * The account's customers, newest first as the API lists them. The page lives in the URL so
 * "Back" from a customer (or a reload) returns to the same page.
 */
export function CustomerList({ accountId }: { accountId: string }) {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const offset = readOffset(searchParams.get("offset"));
  const q = searchParams.get("q") ?? "";

  const query = useQuery({
    queryKey: [...customerQueryKeys.customers(accountId), "list", { offset, q }],
    // The offset travels with the page so the range text matches the rows shown, also while a
    // previous page stands in for the one loading.
    queryFn: async () => ({
      ...(await dashboardCall("listCustomers", { path: { account_id: accountId }, query: { limit: LIMIT, offset, ...(q ? { q } : {}) } })),
      offset,
    }),
    placeholderData: keepPreviousData,
  });

  function goTo(nextOffset: number) {
    // replace, not push: paging should not pile up in the back history.
    const params = new URLSearchParams();
    if (q) params.set("q", q);
    if (nextOffset > 0) params.set("offset", String(nextOffset));
    router.replace(params.size > 0 ? `${pathname}?${params}` : pathname, { scroll: false });
  }

  if (query.isPending) return <Loading what="Loading customers" />;
  if (query.isError && !query.data) return <ErrorBox error={query.error} />;
  const { items, total, has_more, offset: shownOffset } = query.data;

  return (
    <Card
      actions={
        <div className="flex items-center gap-2">
          {query.isPlaceholderData && <span className="text-xs text-slate-500">Loading…</span>}
          <ExportLink path={operationPath("exportCustomers", { account_id: accountId })} filters={{ q }} />
        </div>
      }
    >
      {/* A failed refresh keeps the last good page on screen and says why it may be stale. */}
      {query.isError && <ErrorBox error={query.error} />}
      {items.length === 0 ? (
        <p className="py-4 text-sm text-slate-600">
          {q
            ? `No customer's email or name contains "${q}".`
            : total > 0
              ? "No customers on this page."
              : `No customers yet. Create one here, or with ${operationLine("createCustomerForTokenAccount")} from your server.`}
        </p>
      ) : (
        <Table label="Customers" head={["Email", "Name", "Created", "Events"]}>
          {items.map((customer) => (
            <tr key={customer.id} className="align-top">
              <td className="px-2 py-2">
                <Link
                  href={customerHref(accountId, customer.id)}
                  className="break-all font-medium text-indigo-700 underline hover:text-indigo-900"
                >
                  <Truncated text={customer.email} />
                </Link>
              </td>
              <td className="px-2 py-2">{customer.name ? <Truncated text={customer.name} /> : <span className="text-slate-500">—</span>}</td>
              <td className="whitespace-nowrap px-2 py-2">
                <Time iso={customer.created} />
              </td>
              <td className="px-2 py-2">
                <Link
                  href={eventsHref(accountId, { aggregate_id: customer.id })}
                  className="whitespace-nowrap text-indigo-700 underline hover:text-indigo-900"
                  title="Show this customer's whole event timeline"
                >
                  Timeline
                </Link>
              </td>
            </tr>
          ))}
        </Table>
      )}
      <Pager label="Customer pages" offset={shownOffset} limit={LIMIT} total={total} hasMore={has_more} onChange={goTo} />
    </Card>
  );
}
