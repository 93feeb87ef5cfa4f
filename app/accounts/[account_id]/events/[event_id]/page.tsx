import type { Metadata } from "next";
import { EventDetail } from "@/components/events/event-detail";

export async function generateMetadata({ params }: { params: Promise<{ event_id: string }> }): Promise<Metadata> {
  const { event_id } = await params;
  return { title: `${event_id} · Events · Billing Service` };
}

export default async function EventPage({ params }: { params: Promise<{ account_id: string; event_id: string }> }) {
  const { account_id, event_id } = await params;
  return <EventDetail accountId={account_id} eventId={event_id} />;
}
