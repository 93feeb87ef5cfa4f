"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState, type FormEvent } from "react";
import { dashboardCall } from "@/components/api-client";
import type { RequestLog } from "@/components/api-types";
import { Button, Card, ErrorBox, Loading, PageHeader, Table, formatTime, inputClass } from "@/components/ui";
import { shortPath } from "./path";
import { StatusCode } from "./status";

const FILTERS = ["source", "status", "method", "operation", "path"] as const;
type Filter = (typeof FILTERS)[number];
const DAY_MS = 24 * 60 * 60 * 1000;
/** Stored paths are as sent, API root included. */
const API_ROOT = "/api";

/**
 * The request log (docs/request-logs.md): the newest requests first, filtered by the URL's
 * `status`, `method`, `operation` and `path`, paged with `starting_after`; and the last 24 hours'
 * errors grouped by error code and operation.
 */
export function LogsPage({ accountId }: { accountId: string }) {
  const search = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const filters = Object.fromEntries(FILTERS.flatMap((name) => (search.get(name) ? [[name, search.get(name)!]] : []))) as Partial<Record<Filter, string>>;
  const startingAfter = search.get("starting_after") ?? undefined;
  const [draft, setDraft] = useState(filters);

  const navigate = (next: Partial<Record<Filter, string>>, cursor?: string) => {
    const query = new URLSearchParams();
    for (const name of FILTERS) if (next[name]) query.set(name, next[name]!);
    if (cursor) query.set("starting_after", cursor);
    router.push(query.size ? `${pathname}?${query}` : pathname);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    navigate(draft);
  };

  const logs = useQuery({
    queryKey: ["request-logs", accountId, filters, startingAfter],
    queryFn: () =>
      dashboardCall("listRequestLogs", {
        path: { account_id: accountId },
        // The URL's text as typed by a person: the API answers a wrong value with a 400 this page shows.
        query: { limit: 50, ...filters, ...(startingAfter ? { starting_after: startingAfter } : {}) } as never,
      }),
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <PageHeader title="Logs" />
      <ErrorSummary accountId={accountId} source={filters.source} />
      <form onSubmit={submit} className="mb-4 flex flex-wrap items-end gap-2" aria-label="Log filters">
        <label className="text-sm">
          <span className="block text-xs text-slate-500">Source</span>
          <select name="source" value={draft.source ?? ""} onChange={(event) => setDraft({ ...draft, source: event.target.value })} className={inputClass}>
            <option value="">All sources</option>
            <option value="api">API clients (tokens)</option>
            <option value="dashboard">Dashboard (your sessions)</option>
          </select>
        </label>
        {FILTERS.filter((name) => name !== "source").map((name) => (
          <label key={name} className="text-sm">
            <span className="block text-xs text-slate-500">{name === "status" ? "Status (404, 4xx, 5xx)" : name}</span>
            <input
              name={name}
              value={draft[name] ?? ""}
              onChange={(event) => setDraft({ ...draft, [name]: event.target.value.trim() })}
              className={inputClass}
              placeholder={{ status: "4xx", method: "POST", operation: "createCustomer", path: `${API_ROOT}/customers` }[name as Exclude<Filter, "source">]}
            />
          </label>
        ))}
        <Button type="submit">Filter</Button>
      </form>
      {logs.isPending ? (
        <Loading what="Loading logs" />
      ) : logs.isError ? (
        <ErrorBox error={logs.error} />
      ) : (
        <>
          <LogTable accountId={accountId} items={logs.data.items} />
          <div className="mt-3 flex gap-2">
            {startingAfter ? <Button onClick={() => navigate(filters)}>Newest</Button> : null}
            {logs.data.has_more ? <Button onClick={() => navigate(filters, logs.data.items.at(-1)?.id)}>Older</Button> : null}
          </div>
        </>
      )}
    </>
  );
}

function LogTable({ accountId, items }: { accountId: string; items: RequestLog[] }) {
  return (
    <Table label="Requests" head={["Status", "Method", "Path", "Operation", "Source", "Duration", "Time", "Request"]}>
      {items.length === 0 ? (
        <tr>
          <td colSpan={8} className="px-2 py-4 text-slate-500">
            No requests match these filters.
          </td>
        </tr>
      ) : (
        items.map((item) => (
          <tr key={item.id} data-testid="request-log-row">
            <td className="px-2 py-2">
              <StatusCode status={item.status} />
            </td>
            <td className="px-2 py-2 font-mono text-xs">{item.method}</td>
            <td className="max-w-xs truncate px-2 py-2 font-mono text-xs" title={item.path}>
              {shortPath(item.path)}
            </td>
            <td className="px-2 py-2 text-xs">{item.operation_id ?? "—"}</td>
            <td className="px-2 py-2 text-xs">{item.source === "dashboard" ? "Dashboard" : "API"}</td>
            <td className="px-2 py-2 text-xs">{item.duration_ms} ms</td>
            <td className="whitespace-nowrap px-2 py-2 text-xs">{formatTime(item.created)}</td>
            <td className="px-2 py-2">
              <Link href={`/accounts/${accountId}/logs/${item.id}`} className="font-mono text-xs text-indigo-700 underline">
                {item.id}
              </Link>
            </td>
          </tr>
        ))
      )}
    </Table>
  );
}

/**
 * The latest errors (4xx and 5xx) of the last 24 hours, counted by error code and operation; of
 * one source when the page filters by it.
 */
function ErrorSummary({ accountId, source }: { accountId: string; source?: string }) {
  const [since] = useState(() => new Date(Date.now() - DAY_MS).toISOString());
  const errors = useQuery({
    queryKey: ["request-log-errors", accountId, since, source],
    queryFn: async () => {
      const pages = await Promise.all(
        (["4xx", "5xx"] as const).map((status) =>
          dashboardCall("listRequestLogs", { path: { account_id: accountId }, query: { limit: 100, status, "created[gte]": since, ...(source ? { source } : {}) } as never }),
        ),
      );
      return { items: pages.flatMap((page) => page.items), partial: pages.some((page) => page.has_more) };
    },
  });
  if (errors.isPending || errors.isError) return null;
  const groups = new Map<string, { code: string; operation: string; count: number; latest: string }>();
  for (const item of errors.data.items) {
    const key = `${item.error_code ?? item.status}|${item.operation_id ?? "—"}`;
    const group = groups.get(key) ?? { code: item.error_code ?? String(item.status), operation: item.operation_id ?? "—", count: 0, latest: item.id };
    group.count += 1;
    groups.set(key, group);
  }
  const sorted = [...groups.values()].sort((a, b) => b.count - a.count);
  return (
    <Card title={`Errors in the last 24 hours${source === "api" ? " from API clients" : source === "dashboard" ? " from the dashboard" : ""}${errors.data.partial ? " (the latest 200)" : ""}`}>
      {sorted.length === 0 ? (
        <p className="text-sm text-slate-500">No errors in the last 24 hours.</p>
      ) : (
        <Table label="Errors by code and operation" head={["Error code", "Operation", "Count", "Latest"]}>
          {sorted.map((group) => (
            <tr key={`${group.code}|${group.operation}`} data-testid="error-group">
              <td className="px-2 py-2 font-mono text-xs">{group.code}</td>
              <td className="px-2 py-2 text-xs">{group.operation}</td>
              <td className="px-2 py-2 text-xs">{group.count}</td>
              <td className="px-2 py-2">
                <Link href={`/accounts/${accountId}/logs/${group.latest}`} className="font-mono text-xs text-indigo-700 underline">
                  {group.latest}
                </Link>
              </td>
            </tr>
          ))}
        </Table>
      )}
    </Card>
  );
}
