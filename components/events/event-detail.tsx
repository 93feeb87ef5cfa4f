"use client";

import { Can } from "@/components/dashboard/role";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { ApiError, dashboardCall } from "@/components/api-client";
import { Button, Card, CopyButton, ErrorBox, Loading, PageHeader } from "@/components/ui";
import { DetailItem, Time } from "./bits";
import { DataDiff } from "./data-diff";
import { EntityTimelineLink } from "./entity";
import { RawJson } from "@/components/ui/raw-json";
import { DeliveryCard } from "./delivery-card";
import { ResendEvent } from "./resend-event";
import { eventsHref, formatJson, isInFlight, queryKeys } from "./format";
import type { EventItem } from "@/components/api-types";

/**
 * One event as webhooks see it: first the exact body its deliveries POSTed and the deliveries
 * (within the first screen), then the API event's fields, the entity before/after and its JSON.
 */
export function EventDetail({ accountId, eventId, actorNames = {} }: { accountId: string; eventId: string; actorNames?: Record<string, string> }) {
  const query = useQuery({
    queryKey: queryKeys.eventFull(accountId, eventId),
    queryFn: () => dashboardCall("getEventFull", { path: { account_id: accountId, event_id: eventId } }),
    // Poll only while a delivery can still change by itself; settled events cost nothing.
    refetchInterval: (q) => (q.state.data?.deliveries.some(isInFlight) ? 2_000 : false),
  });

  const back = (
    <Link href={eventsHref(accountId)} className="text-sm text-indigo-700 underline hover:text-indigo-900">
      <span aria-hidden="true">← </span>
      Back to events
    </Link>
  );

  if (query.isPending) {
    return (
      <>
        <div className="mb-2">{back}</div>
        <Loading what="Loading event" />
      </>
    );
  }
  if (query.isError) {
    const notFound = query.error instanceof ApiError && query.error.status === 404;
    return (
      <>
        <div className="mb-2">{back}</div>
        <PageHeader title={notFound ? "Event not found" : "Event"} />
        <ErrorBox error={query.error} />
      </>
    );
  }

  const { event, deliveries, webhook } = query.data;
  return (
    <>
      <div className="mb-2">{back}</div>
      <PageHeader title={event.type}>
        <CopyButton value={event.id} label="Copy event id" />
      </PageHeader>
      <div className="space-y-4">
        <DeliveredBody body={webhook.body} />
        <Card title="Deliveries">
          {deliveries.length === 0 ? (
            <p className="text-sm text-slate-600">
              No webhook deliveries: no enabled endpoint was subscribed to {event.type} when this event happened.{" "}
              <Link href={`/accounts/${accountId}/webhooks`} className="text-indigo-700 underline hover:text-indigo-900">
                Manage webhooks
              </Link>
            </p>
          ) : (
            <div className="space-y-3">
              {deliveries.map((delivery) => (
                <DeliveryCard
                  key={delivery.id}
                  accountId={accountId}
                  eventId={event.id}
                  delivery={delivery}
                  request={webhook.requests.find((request) => request.delivery_id === delivery.id)}
                />
              ))}
            </div>
          )}
        </Card>
        <Can role="developer">
          <ResendEvent accountId={accountId} eventId={event.id} />
        </Can>
        <EventFields accountId={accountId} event={event} actorNames={actorNames} />
        <Card title="Data">
          <DataDiff before={event.previous_data} after={event.data} />
        </Card>
        <RawJson title="Raw JSON (as GET /events/{id} returns it)" value={event} />
      </div>
    </>
  );
}

/**
 * The body exactly as receivers got it (the webhook payload, not the API event: `data.object`,
 * `previous_attributes`, `created` in Unix seconds), in a short scrolling box so the deliveries
 * stay on the first screen.
 */
function DeliveredBody({ body }: { body: string }) {
  // The bytes as sent by default; indented on request, for reading (the copy is always the bytes).
  const [formatted, setFormatted] = useState(false);
  return (
    <Card title="Delivered body">
      <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
        <p className="text-xs text-slate-600">The exact bytes POSTed to each endpoint ({body.length.toLocaleString("en")} characters). Headers are under each delivery.</p>
        <div className="flex gap-2">
          <Button variant="secondary" aria-pressed={formatted} onClick={() => setFormatted((value) => !value)}>
            Formatted
          </Button>
          <CopyButton value={body} label="Copy body" />
        </div>
      </div>
      <div role="region" tabIndex={0} aria-label="Delivered body" className="max-h-40 overflow-auto rounded bg-slate-50 p-2 sm:max-h-56">
        <pre data-testid="delivered-body" className={`font-mono text-xs ${formatted ? "whitespace-pre" : "whitespace-pre-wrap break-all"}`}>
          {formatted ? formatJson(JSON.parse(body)) : body}
        </pre>
      </div>
    </Card>
  );
}

function EventFields({ accountId, event, actorNames }: { accountId: string; event: EventItem; actorNames: Record<string, string> }) {
  const hasMetadata = Object.keys(event.metadata).length > 0;
  return (
    <Card title="Event">
      <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-2 lg:grid-cols-3">
        <DetailItem label="Id">
          <span className="break-all font-mono text-xs">{event.id}</span>
        </DetailItem>
        <DetailItem label="Type">{event.type}</DetailItem>
        <DetailItem label="Aggregate type">{event.aggregate_type}</DetailItem>
        <DetailItem label="Entity">
          <EntityTimelineLink accountId={accountId} event={event} className="break-words" />
        </DetailItem>
        <DetailItem label="Aggregate id">
          <span className="break-all font-mono text-xs">{event.aggregate_id}</span>
        </DetailItem>
        <DetailItem label="Created">
          <Time iso={event.created} />
        </DetailItem>
        <DetailItem label="Version">{event.version}</DetailItem>
        <DetailItem label="Correlation id">
          <span className="break-all font-mono text-xs">{event.correlation_id ?? "—"}</span>
        </DetailItem>
        <DetailItem label="Actor">
          {event.actor_id && actorNames[event.actor_id] ? (
            <span title={event.actor_id} data-testid="event-actor">
              {actorNames[event.actor_id]}
            </span>
          ) : (
            <span data-testid="event-actor">{event.actor_type ?? "—"}</span>
          )}
        </DetailItem>
        <DetailItem label="Actor id">
          <span className="break-all font-mono text-xs">{event.actor_id ?? "—"}</span>
        </DetailItem>
        <DetailItem label="Metadata" wide>
          {hasMetadata ? (
            <pre className="whitespace-pre-wrap break-all rounded bg-slate-50 p-2 font-mono text-xs">{formatJson(event.metadata)}</pre>
          ) : (
            <span className="text-slate-600">None ({"{}"})</span>
          )}
        </DetailItem>
      </dl>
    </Card>
  );
}
