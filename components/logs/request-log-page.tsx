"use client";

import Link from "next/link";
import { dashboardCall } from "@/components/api-client";
import type { RequestLogDetail } from "@/components/api-types";
import { BackLink, detailFallback, useApiObject } from "@/components/ui/detail";
import { Card, CopyButton, PageHeader, Table, formatTime } from "@/components/ui";
import { StatusCode } from "./status";

/** A shell word in single quotes (a quote inside closes, escapes and reopens). */
const quoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * The request again as a curl command, without a secret: the token is an environment variable,
 * and the body is the stored one (kept, redacted, for errors only).
 */
export function curlOf(log: RequestLogDetail, origin: string): string {
  const url = `${origin}${log.path}${log.query ? `?${log.query}` : ""}`;
  const lines = [`curl -X ${log.method} ${quoted(url)}`, `  -H 'Authorization: Bearer $BILLING_SECRET_TOKEN'`];
  for (const name of ["content-type", "idempotency-key", "x-correlation-id"]) {
    const value = log.request_headers[name];
    if (value) lines.push(`  -H ${quoted(`${name}: ${value}`)}`);
  }
  if (log.request_body) lines.push(`  -d ${quoted(log.request_body)}`);
  return lines.join(" \\\n");
}

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export function RequestLogPage({ accountId, requestId }: { accountId: string; requestId: string }) {
  const back = <BackLink href={`/accounts/${accountId}/logs`}>Logs</BackLink>;
  const query = useApiObject(["request-log", accountId, requestId], () =>
    dashboardCall("getRequestLog", { path: { account_id: accountId, request_id: requestId } }),
  );
  const fallback = detailFallback(query, {
    noun: "request",
    id: requestId,
    back,
    notFoundHint: "Requests appear within about a second, and are kept for 30 days.",
  });
  if (fallback) return fallback;
  const log = query.data!;
  const curl = curlOf(log, window.location.origin);
  return (
    <>
      {back}
      <PageHeader title={`${log.method} ${log.path}`}>
        <StatusCode status={log.status} />
      </PageHeader>
      <Card title="Request">
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-500">Request id</dt>
          <dd className="font-mono text-xs" data-testid="request-id">{log.id}</dd>
          <dt className="text-slate-500">Time</dt>
          <dd>{formatTime(log.created)}</dd>
          <dt className="text-slate-500">Duration</dt>
          <dd>{log.duration_ms} ms</dd>
          <dt className="text-slate-500">Operation</dt>
          <dd>{log.operation_id ?? "—"}</dd>
          <dt className="text-slate-500">Error code</dt>
          <dd>{log.error_code ?? "—"}</dd>
          <dt className="text-slate-500">Source</dt>
          <dd>{log.token_id ? `API token ${log.token_id}` : log.user_id ? `Dashboard user ${log.user_id}` : "Unauthenticated"}</dd>
          <dt className="text-slate-500">Client</dt>
          <dd>{[log.client_address, log.user_agent].filter(Boolean).join(" · ") || "—"}</dd>
          <dt className="text-slate-500">Idempotency</dt>
          <dd>{log.idempotency_key ? `${log.idempotency_key}${log.idempotent_replayed ? " (replayed)" : ""}` : "—"}</dd>
          {log.query ? (
            <>
              <dt className="text-slate-500">Query</dt>
              <dd className="font-mono text-xs">{log.query}</dd>
            </>
          ) : null}
        </dl>
      </Card>
      <Card title="Headers">
        <pre className="overflow-x-auto text-xs" data-testid="request-headers">
          {Object.entries(log.request_headers)
            .map(([name, value]) => `${name}: ${value}`)
            .join("\n") || "—"}
        </pre>
      </Card>
      {log.request_body !== null || log.response_body !== null ? (
        <Card title="Bodies (redacted)">
          {log.request_body !== null ? (
            <>
              <h3 className="text-xs uppercase text-slate-500">Request body</h3>
              <pre className="mb-3 overflow-x-auto text-xs" data-testid="request-body">{pretty(log.request_body)}</pre>
            </>
          ) : null}
          {log.response_body !== null ? (
            <>
              <h3 className="text-xs uppercase text-slate-500">Response body</h3>
              <pre className="overflow-x-auto text-xs" data-testid="response-body">{pretty(log.response_body)}</pre>
            </>
          ) : null}
        </Card>
      ) : null}
      <Card title="Events caused">
        {log.events.length === 0 ? (
          <p className="text-sm text-slate-500">This request caused no events.</p>
        ) : (
          <Table label="Events caused" head={["Type", "Event", "Object"]}>
            {log.events.map((event) => (
              <tr key={event.id}>
                <td className="px-2 py-2 text-xs">{event.type}</td>
                <td className="px-2 py-2">
                  <Link href={`/accounts/${accountId}/events/${event.id}`} className="font-mono text-xs text-indigo-700 underline">
                    {event.id}
                  </Link>
                </td>
                <td className="px-2 py-2 font-mono text-xs">{event.aggregate_id}</td>
              </tr>
            ))}
          </Table>
        )}
      </Card>
      <Card title="Try it again" actions={<CopyButton value={curl} label="Copy curl" />}>
        <pre className="overflow-x-auto text-xs" data-testid="curl">{curl}</pre>
      </Card>
    </>
  );
}
