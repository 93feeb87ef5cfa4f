"use client";

import { operationPath } from "@/lib/operation-paths";
import { ExportLink } from "@/components/ui/export-link";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import type { FormEvent } from "react";
import { ApiError, dashboardCall, type CallInput } from "@/components/api-client";
import type { ListEnvelope } from "@/components/api-types";
import { plainMessage } from "@/components/objects/form-values";
import { Button, Card, ErrorBox, Field, Loading, StatusBadge, Table, inputClass } from "@/components/ui";
import { AGGREGATE_TYPES, EVENT_CATALOGUE, isEventType } from "@/lib/events/catalogue";
import { Time } from "./bits";
import { EntityTimelineLink, timelineTitle } from "./entity";
import {
  EVENTS_PAGE_SIZE as PAGE_SIZE,
  eventHref,
  eventListQuery,
  eventListState,
  filterProblems,
  queryKeys,
  summaryParts,
} from "./format";
import { EVENT_FILTER_KEYS, type EventFilterKey } from "./types";
import type { EventListItem } from "@/components/api-types";


/**
 * The account's event timeline. Filters and the page live in the URL (not in state) so a view can
 * be shared, bookmarked and survives a reload. A filter that cannot match (an unknown type) is
 * named in a short message and kept in its picker, so the two agree; the API is not asked.
 */
export type EventListPage = ListEnvelope<EventListItem> & { offset: number };

/**
 * `initial`: the page the server rendered for the URL's query (`query` is its API query string);
 * it is shown at once, then refreshed like any other page.
 */
export function EventList({ accountId, initial }: { accountId: string; initial?: { query: string; page: EventListPage } | null }) {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();

  const { filters, offset } = eventListState((key) => searchParams.get(key));
  const filtered = Object.keys(filters).length > 0;
  const problems = filterProblems(filters);

  const apiQuery = eventListQuery(filters, offset);
  const initialPage = initial && initial.query === apiQuery.toString() ? initial.page : undefined;
  const query = useQuery({
    queryKey: [...queryKeys.events(accountId), "list", filters, offset],
    // The offset travels with the page so the range text matches the rows shown, also while a
    // previous page stands in for the one loading.
    queryFn: async () => ({ ...(await dashboardCall("listEvents", {
        path: { account_id: accountId },
        // The URL's filters as the API reads them (filterProblems names bad ones first; the API checks again).
        query: Object.fromEntries(apiQuery) as CallInput<"listEvents">["query"],
      })), offset }),
    // New events (and delivery outcomes) show up without a reload.
    refetchInterval: 5_000,
    // Keeps the current page on screen while the next page or filter loads.
    placeholderData: keepPreviousData,
    initialData: initialPage,
    enabled: problems.length === 0,
  });

  function navigate(next: Partial<Record<EventFilterKey, string>>, nextOffset: number) {
    const params = new URLSearchParams();
    for (const key of EVENT_FILTER_KEYS) {
      const value = next[key]?.trim();
      if (value) params.set(key, value);
    }
    if (nextOffset > 0) params.set("offset", String(nextOffset));
    const qs = params.toString();
    // replace, not push: filter tweaks should not pile up in the back history.
    router.replace(qs ? `${pathname}?${qs}` : pathname, { scroll: false });
  }

  function applyFilters(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const next: Partial<Record<EventFilterKey, string>> = {};
    for (const key of EVENT_FILTER_KEYS) {
      const value = form.get(key);
      if (typeof value === "string") next[key] = value;
    }
    navigate(next, 0); // a new filter starts at the first page
  }

  const data = query.data;
  const items = data?.items ?? [];
  const shownOffset = data?.offset ?? offset;
  const from = items.length > 0 ? shownOffset + 1 : 0;
  const to = shownOffset + items.length;

  return (
    <div className="space-y-4">
      <Card title="Filters">
        {/* Uncontrolled inputs, remounted whenever the URL changes (e.g. following an entity link). */}
        <form key={searchParams.toString()} onSubmit={applyFilters} aria-label="Event filters" className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
          <Field label="Event type">
            <select
              name="event_type"
              defaultValue={filters.event_type ?? ""}
              className={inputClass}
              onChange={(event) => event.currentTarget.form?.requestSubmit()}
            >
              <option value="">Any</option>
              <UnknownOption value={filters.event_type} known={isEventType} />
              {EVENT_CATALOGUE.map((group) => (
                <optgroup key={group.group} label={group.group}>
                  {group.types.map((type) => (
                    <option key={type} value={type}>
                      {type}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </Field>
          <Field label="Aggregate type">
            <select
              name="aggregate_type"
              defaultValue={filters.aggregate_type ?? ""}
              className={inputClass}
              onChange={(event) => event.currentTarget.form?.requestSubmit()}
            >
              <option value="">Any</option>
              <UnknownOption value={filters.aggregate_type} known={(value) => (AGGREGATE_TYPES as readonly string[]).includes(value)} />
              {AGGREGATE_TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Aggregate id">
            <input name="aggregate_id" defaultValue={filters.aggregate_id ?? ""} className={`${inputClass} font-mono`} autoComplete="off" spellCheck={false} />
          </Field>
          <Field label="Event id">
            <input name="event_id" defaultValue={filters.event_id ?? ""} className={`${inputClass} font-mono`} autoComplete="off" spellCheck={false} />
          </Field>
          <div className="flex flex-wrap gap-2 sm:col-span-2 lg:col-span-4">
            <Button type="submit">Apply filters</Button>
            <Button variant="secondary" onClick={() => navigate({}, 0)}>
              Clear filters
            </Button>
          </div>
        </form>
      </Card>

      <Card
        title={filters.aggregate_id ? timelineTitle(filters.aggregate_id, items) : "Timeline"}
        actions={
          <div className="flex items-center gap-2">
            {query.isPlaceholderData && <span className="text-xs text-slate-500">Loading…</span>}
            {problems.length === 0 && <ExportLink path={operationPath("exportEvents", { account_id: accountId })} filters={filters} />}
          </div>
        }
      >
        {problems.length > 0 ? (
          <div role="alert" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
            {problems.join(" ")} No events can match: pick another value above, or{" "}
            <button type="button" className="underline" onClick={() => navigate({}, 0)}>
              clear the filters
            </button>
            .
          </div>
        ) : query.isPending ? (
          <Loading what="Loading events" />
        ) : query.isError && !data ? (
          <QueryProblem error={query.error} />
        ) : (
          <>
            {/* A failed refresh keeps the last good page on screen and says why it may be stale. */}
            {query.isError && <QueryProblem error={query.error} />}
            {items.length === 0 ? (
              <p className="py-4 text-sm text-slate-600">
                {data && data.total > 0
                  ? "No events on this page."
                  : filtered
                    ? "No events match these filters."
                    : "No events yet. Every change (a customer created, an invoice paid, …) appears here."}
              </p>
            ) : (
              <Table label="Events" head={["Type", "Entity", "Time", "Deliveries", "Event"]}>
                {items.map((event) => (
                  <EventRow key={event.id} accountId={accountId} event={event} />
                ))}
              </Table>
            )}
            <nav aria-label="Pagination" className="mt-3 flex flex-wrap items-center justify-between gap-2 text-sm">
              <p aria-live="polite" className="text-slate-600">
                {data ? `Showing ${from}–${to} of ${data.total}` : null}
              </p>
              <div className="flex gap-2">
                <Button variant="secondary" disabled={offset === 0} onClick={() => navigate(filters, Math.max(0, offset - PAGE_SIZE))}>
                  Previous
                </Button>
                <Button variant="secondary" disabled={!data?.has_more || query.isPlaceholderData} onClick={() => navigate(filters, offset + PAGE_SIZE)}>
                  Next
                </Button>
              </div>
            </nav>
          </>
        )}
      </Card>
    </div>
  );
}

/** The bad value of a filter from the URL, shown selected in its picker rather than "Any". */
function UnknownOption({ value, known }: { value: string | undefined; known: (value: string) => boolean }) {
  if (!value || known(value)) return null;
  return <option value={value}>{`${value.length > 40 ? `${value.slice(0, 40)}…` : value} (unknown)`}</option>;
}

/** The API's problem with the query in a line per field: its wording can list a whole catalogue. */
function QueryProblem({ error }: { error: unknown }) {
  const fields = error instanceof ApiError && error.status === 400 ? (error.problem.errors ?? []) : [];
  if (fields.length === 0) return <ErrorBox error={error} />;
  const short = (text: string) => (text.length > 120 ? `${text.slice(0, 120)}…` : text);
  return (
    <ErrorBox
      error={new Error(`These filters are not valid: ${fields.map((field) => `${field.field} (${short(plainMessage(field.message))})`).join("; ")}`)}
    />
  );
}

function EventRow({ accountId, event }: { accountId: string; event: EventListItem }) {
  const parts = summaryParts(event.delivery_summary);
  return (
    <tr className="align-top">
      <td className="px-2 py-2 font-medium">{event.type}</td>
      <td className="px-2 py-2">
        <span className="block text-xs text-slate-500">{event.aggregate_type}</span>
        <EntityTimelineLink accountId={accountId} event={event} className="block" />
      </td>
      <td className="whitespace-nowrap px-2 py-2">
        <Time iso={event.created} />
      </td>
      <td className="px-2 py-2">
        {parts.length === 0 ? (
          "—"
        ) : (
          <span className="flex flex-wrap gap-1">
            {parts.map((part) => (
              <StatusBadge key={part.status} status={part.status} label={part.label} />
            ))}
          </span>
        )}
      </td>
      <td className="px-2 py-2">
        <Link href={eventHref(accountId, event.id)} className="whitespace-nowrap font-mono text-xs text-indigo-700 underline hover:text-indigo-900">
          {event.id}
        </Link>
      </td>
    </tr>
  );
}
