"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { dashboardCall } from "@/components/api-client";

/**
 * A delivery's event named by its type ("invoice.paid"), linked to the event, the id below it. An
 * event never changes, so each is read once per session.
 */
export function DeliveryEventType({ accountId, eventId }: { accountId: string; eventId: string }) {
  const event = useQuery({
    queryKey: ["events", accountId, "type-of", eventId],
    queryFn: () => dashboardCall("getEvent", { path: { account_id: accountId, event_id: eventId } }),
    staleTime: Infinity,
    gcTime: 30 * 60_000,
  });
  return (
    <Link href={`/accounts/${accountId}/events/${encodeURIComponent(eventId)}`} className="text-indigo-700 underline-offset-2 hover:underline" title={eventId}>
      <span className="block font-mono text-sm" data-testid="delivery-event-type">
        {event.data?.type ?? "Event"}
      </span>
      <span className="block font-mono text-xs text-slate-500">{eventId}</span>
    </Link>
  );
}
