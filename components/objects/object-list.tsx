"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button, Card, ErrorBox, Loading, Table, inputClass } from "@/components/ui";
import { Pager } from "@/components/ui/pager";
import { objectKind, type ObjectKind } from "./kinds";

const LIMIT = 25;

function readOffset(raw: string | null): number {
  const value = Number(raw);
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}

/** The filter bar: selects apply at once, text filters on submit. Its state is the URL's. */
function FilterBar({ kind, values, onApply }: { kind: ObjectKind; values: Record<string, string>; onApply: (next: Record<string, string>) => void }) {
  const [draft, setDraft] = useState(values);
  if (kind.filters.length === 0) return null;
  function submit(event: FormEvent) {
    event.preventDefault();
    onApply(draft);
  }
  return (
    <form onSubmit={submit} className="mb-3 flex flex-wrap items-end gap-2" aria-label={`Filter ${kind.title.toLowerCase()}`}>
      {kind.filters.map((filter) => (
        <label key={filter.key} className="text-sm">
          <span className="mb-1 block text-xs font-medium text-slate-600">{filter.label}</span>
          {filter.options ? (
            <select
              className={inputClass}
              value={draft[filter.key] ?? ""}
              onChange={(event) => {
                const next = { ...draft, [filter.key]: event.target.value };
                setDraft(next);
                onApply(next);
              }}
            >
              <option value="">Any</option>
              {filter.options.map((option) => (
                <option key={option} value={option}>
                  {option === "true" ? "Active" : option === "false" ? "Archived" : option.replaceAll("_", " ")}
                </option>
              ))}
            </select>
          ) : (
            <input
              className={inputClass}
              placeholder={filter.placeholder}
              value={draft[filter.key] ?? ""}
              onChange={(event) => setDraft({ ...draft, [filter.key]: event.target.value.trim() })}
            />
          )}
        </label>
      ))}
      {kind.filters.some((filter) => !filter.options) && (
        <Button type="submit" variant="secondary">
          Apply
        </Button>
      )}
    </form>
  );
}

/**
 * A list of one kind of billing object: filters and page in the URL, newest first as the API lists
 * them. With `scope` it is one object's related list (a customer's payments, a product's prices):
 * those filters are fixed and hidden, and `param` prefixes its URL keys so lists share a page.
 */
export function ObjectList({
  accountId,
  slug,
  scope = {},
  title,
  param = "",
}: {
  accountId: string;
  slug: string;
  scope?: Record<string, string>;
  title?: string;
  param?: string;
}) {
  const base = objectKind(slug)!;
  const kind: ObjectKind = { ...base, filters: base.filters.filter((filter) => !(filter.key in scope)) };
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const offset = readOffset(searchParams.get(`${param}offset`));
  const filters: Record<string, string> = {};
  for (const filter of kind.filters) {
    const value = searchParams.get(`${param}${filter.key}`);
    if (value) filters[filter.key] = value;
  }

  const query = useQuery({
    queryKey: [kind.slug, accountId, "list", { ...filters, ...scope }, offset],
    queryFn: async () => {
      return { ...(await kind.reads.list(accountId, { ...filters, ...scope, limit: String(LIMIT), offset: String(offset) })), offset };
    },
    placeholderData: keepPreviousData,
  });

  function navigate(nextFilters: Record<string, string>, nextOffset: number) {
    // A related list keeps the page's other lists' keys; a page's own list starts afresh.
    const params = new URLSearchParams(param ? searchParams : undefined);
    for (const filter of kind.filters) params.delete(`${param}${filter.key}`);
    params.delete(`${param}offset`);
    for (const [key, value] of Object.entries(nextFilters)) if (value) params.set(`${param}${key}`, value);
    if (nextOffset > 0) params.set(`${param}offset`, String(nextOffset));
    const qs = params.toString();
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  }

  return (
    <Card title={title} actions={query.isPlaceholderData ? <span className="text-xs text-slate-500">Loading…</span> : undefined}>
      {/* Keyed by the URL's filters, so Back/Forward resets the inputs to what is shown. */}
      <FilterBar key={JSON.stringify(filters)} kind={kind} values={filters} onApply={(next) => navigate(next, 0)} />
      {query.isPending ? (
        <Loading what={`Loading ${kind.title.toLowerCase()}`} />
      ) : query.isError && !query.data ? (
        <ErrorBox error={query.error} />
      ) : (
        <>
          {query.isError && <ErrorBox error={query.error} />}
          {query.data.items.length === 0 ? (
            <p className="py-4 text-sm text-slate-600">{Object.keys(filters).length > 0 ? `No ${kind.title.toLowerCase()} match these filters.` : kind.empty}</p>
          ) : (
            <Table label={title ?? kind.title} head={kind.columns.map((column) => column.label)}>
              {query.data.items.map((object) => (
                <tr key={object.id} className="align-top">
                  {kind.columns.map((column) => (
                    <td key={column.label} className="px-2 py-2">
                      {column.cell(object, accountId)}
                    </td>
                  ))}
                </tr>
              ))}
            </Table>
          )}
          <Pager
            label={`${title ?? kind.title} pages`}
            offset={query.data.offset}
            limit={LIMIT}
            total={query.data.total}
            hasMore={query.data.has_more}
            onChange={(next) => navigate(filters, next)}
          />
        </>
      )}
    </Card>
  );
}
