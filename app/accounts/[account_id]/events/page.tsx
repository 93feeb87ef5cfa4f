import type { Metadata } from "next";
import { Suspense } from "react";
import { EventList } from "@/components/events/event-list";
import { Loading, PageHeader } from "@/components/ui";

export const metadata: Metadata = { title: "Events · Billing Service" };

export default async function EventsPage({ params }: { params: Promise<{ account_id: string }> }) {
  const { account_id } = await params;
  return (
    <>
      <PageHeader title="Events" />
      {/* EventList reads the filters from the URL (useSearchParams), which needs a Suspense boundary. */}
      <Suspense fallback={<Loading what="Loading events" />}>
        <EventList accountId={account_id} />
      </Suspense>
    </>
  );
}
