import type { Metadata } from "next";
import { Suspense } from "react";
import { requireAccount } from "@/app/_lib/session";
import { EventList, type EventListPage } from "@/components/events/event-list";
import { eventListQuery, eventListState } from "@/components/events/format";
import { Loading, PageHeader } from "@/components/ui";
import { accountClock } from "@/lib/time";
import { ServiceError } from "@/lib/errors";
import { eventListPage } from "@/lib/events-api/list-page";
import { EventListQuery } from "@/lib/events-api/schema";

export const metadata: Metadata = { title: "Events · Billing Service" };

type SearchParams = Record<string, string | string[] | undefined>;

/**
 * The first page, read on the server with the same query the browser would send, so the rows are
 * in the HTML (no round trip after hydration). A query the API would refuse renders nothing here;
 * the browser then asks the API and shows its problem.
 */
async function firstPage(accountId: string, searchParams: SearchParams): Promise<{ query: string; page: EventListPage } | null> {
  const { account, user } = await requireAccount(accountId);
  const { filters, offset } = eventListState((key) => {
    const value = searchParams[key];
    return typeof value === "string" ? value : undefined;
  });
  const query = eventListQuery(filters, offset);
  const parsed = EventListQuery.safeParse(Object.fromEntries(query));
  if (!parsed.success) return null;
  const ctx = {
    accountId: account.id,
    livemode: account.livemode,
    actor: { type: "user" as const, id: user.id },
    correlationId: null,
    now: accountClock(account.clockOffsetMs),
  };
  try {
    const page = await eventListPage({ ctx, input: parsed.data });
    // The service's page is the API's answer (one serializer); the document's types name its enums.
    return { query: query.toString(), page: { ...page, offset } as EventListPage };
  } catch (error) {
    // A refused query (e.g. an offset beyond the bound): the browser's request shows the API's problem.
    if (error instanceof ServiceError) return null;
    throw error;
  }
}

export default async function EventsPage({
  params,
  searchParams,
}: {
  params: Promise<{ account_id: string }>;
  searchParams: Promise<SearchParams>;
}) {
  const { account_id } = await params;
  const initial = await firstPage(account_id, await searchParams);
  return (
    <>
      <PageHeader title="Events" />
      {/* EventList reads the filters from the URL (useSearchParams), which needs a Suspense boundary. */}
      <Suspense fallback={<Loading what="Loading events" />}>
        <EventList accountId={account_id} initial={initial} />
      </Suspense>
    </>
  );
}
