"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { dashboardCall } from "@/components/api-client";
import { Card, ErrorBox, Loading } from "@/components/ui";
import { Time } from "@/components/events/bits";
import { eventHref, eventsHref, queryKeys } from "@/components/events/format";

/** The five newest events, each linking to its detail. */
export function RecentEvents({ accountId }: { accountId: string }) {
  const query = useQuery({
    queryKey: [...queryKeys.events(accountId), "recent"],
    queryFn: () => dashboardCall("listEvents", { path: { account_id: accountId }, query: { limit: 5 } }),
    refetchInterval: 10_000,
  });

  return (
    <Card
      title="Recent events"
      actions={
        <Link href={eventsHref(accountId)} className="text-sm text-indigo-700 underline hover:text-indigo-900">
          View all events
        </Link>
      }
    >
      {query.isPending ? (
        <Loading what="Loading events" />
      ) : query.isError ? (
        <ErrorBox error={query.error} />
      ) : query.data.items.length === 0 ? (
        <p className="text-sm text-slate-600">No events yet: make your first API call below.</p>
      ) : (
        <ul className="divide-y divide-slate-100 text-sm">
          {query.data.items.map((event) => (
            <li key={event.id} className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1 py-2">
              <Link href={eventHref(accountId, event.id)} className="font-medium text-indigo-700 underline hover:text-indigo-900">
                {event.type}
              </Link>
              <span className="break-all font-mono text-xs text-slate-500">{event.aggregate_id}</span>
              <span className="text-xs text-slate-500">
                <Time iso={event.created} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
