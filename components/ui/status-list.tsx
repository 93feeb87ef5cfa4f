"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import type { ReactNode } from "react";
import type { ListEnvelope } from "@/components/api-types";
import { Card, ErrorBox, Field, inputClass, Loading, Table } from "@/components/ui";
import { ExportLink } from "@/components/ui/export-link";
import { Pager } from "@/components/ui/pager";

const LIMIT = 25;

/** What a related list is narrowed to (a customer's invoices). */
export type ListScope = { customer?: string; invoice?: string };
/** One page's query, as the list operations take it. */
export type ListPageQuery<S extends string> = ListScope & { limit: number; offset: number; status?: S };

function readOffset(raw: string | null): number {
  const value = Number(raw);
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}

/**
 * A page of an account's objects, newest first as the API lists them, with a status filter. The
 * page and the filter live in the URL so "Back" from an object (or a reload) returns to the same
 * view. Used by the invoices and subscriptions lists. With `scope` it is one object's related list
 * (a customer's invoices): those filters are fixed, and `param` prefixes its URL keys so several
 * lists share a page.
 */
export function StatusFilteredList<T extends { id: string }, S extends string>({
  list,
  noun,
  statuses,
  queryKey,
  head,
  emptyHint,
  row,
  scope = {},
  param = "",
  title: cardTitle,
  exportPath,
}: {
  /** Reads one page: the list operation of the account's collection, e.g. `listInvoices`. */
  list: (query: ListPageQuery<S>) => Promise<ListEnvelope<T>>;
  /** Singular and plural, e.g. `["invoice", "invoices"]`. */
  noun: [string, string];
  statuses: readonly S[];
  queryKey: readonly unknown[];
  head: string[];
  emptyHint: string;
  row: (item: T) => ReactNode;
  scope?: ListScope;
  param?: string;
  title?: string;
  /** The list's export operation (`/api/{account}/invoices/export`): an Export link of the filtered view. */
  exportPath?: string;
}) {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const offset = readOffset(searchParams.get(`${param}offset`));
  const isStatus = (value: string | null): value is S => value !== null && (statuses as readonly string[]).includes(value);
  const rawStatus = searchParams.get(`${param}status`);
  // An unknown status in a hand-edited URL reads as "Any" rather than a 400 from the API.
  const status: S | undefined = isStatus(rawStatus) ? rawStatus : undefined;
  const [singular, plural] = noun;
  const title = cardTitle ?? plural.charAt(0).toUpperCase() + plural.slice(1);

  const query = useQuery({
    queryKey: [...queryKey, "list", { offset, status, ...scope }],
    // The offset travels with the page so the range text matches the rows shown, also while a
    // previous page stands in for the one loading.
    queryFn: async () => {
      return { ...(await list({ ...scope, limit: LIMIT, offset, ...(status ? { status } : {}) })), offset };
    },
    placeholderData: keepPreviousData,
  });

  function navigate(next: { offset: number; status: S | undefined }) {
    // A related list keeps the page's other lists' keys; a page's own list starts afresh.
    const params = new URLSearchParams(param ? searchParams : undefined);
    params.delete(`${param}status`);
    params.delete(`${param}offset`);
    if (next.status) params.set(`${param}status`, next.status);
    if (next.offset > 0) params.set(`${param}offset`, String(next.offset));
    const qs = params.toString();
    // replace, not push: paging and filtering should not pile up in the back history.
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  }

  const filter = (
    <div className="w-48">
      <Field label="Status">
        <select
          value={status ?? ""}
          className={inputClass}
          // A new filter starts again from the first page.
          onChange={(event) => navigate({ offset: 0, status: isStatus(event.target.value) ? event.target.value : undefined })}
        >
          <option value="">Any</option>
          {statuses.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      </Field>
    </div>
  );

  if (query.isPending) {
    return (
      <Card title={cardTitle} actions={filter}>
        <Loading what={`Loading ${plural}`} />
      </Card>
    );
  }
  if (query.isError && !query.data) {
    return (
      <Card title={cardTitle} actions={filter}>
        <ErrorBox error={query.error} />
      </Card>
    );
  }
  const { items, total, has_more, offset: shownOffset } = query.data;

  return (
    <Card
      title={cardTitle}
      actions={
        <div className="flex w-full flex-wrap items-end justify-between gap-2">
          {filter}
          {query.isPlaceholderData && <span className="text-xs text-slate-500">Loading…</span>}
          {exportPath && <ExportLink path={exportPath} filters={{ ...scope, status }} />}
        </div>
      }
    >
      {/* A failed refresh keeps the last good page on screen and says why it may be stale. */}
      {query.isError && <ErrorBox error={query.error} />}
      {items.length === 0 ? (
        <p className="py-4 text-sm text-slate-600">
          {total > 0 ? `No ${plural} on this page.` : status ? `No ${status} ${plural}.` : emptyHint}
        </p>
      ) : (
        <Table label={title} head={head}>
          {items.map(row)}
        </Table>
      )}
      <Pager
        label={`${cardTitle ?? singular.charAt(0).toUpperCase() + singular.slice(1)} pages`}
        offset={shownOffset}
        limit={LIMIT}
        total={total}
        hasMore={has_more}
        onChange={(nextOffset) => navigate({ offset: nextOffset, status })}
      />
    </Card>
  );
}
