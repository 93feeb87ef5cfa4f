import type { Metadata } from "next";
import { requireAccount } from "@/app/_lib/session";
import { EventDetail } from "@/components/events/event-detail";
import { listMembers } from "@/lib/teams/members";

export async function generateMetadata({ params }: { params: Promise<{ event_id: string }> }): Promise<Metadata> {
  const { event_id } = await params;
  return { title: `${event_id} · Events · Billing Service` };
}

export default async function EventPage({ params }: { params: Promise<{ account_id: string; event_id: string }> }) {
  const { account_id, event_id } = await params;
  // A user actor is named by the organization's members (name and email), not by their user id.
  const { user } = await requireAccount(account_id);
  const members = await listMembers(user.organizationId);
  const actorNames = Object.fromEntries(members.map((member) => [member.id, member.name ? `${member.name} <${member.email}>` : member.email]));
  return <EventDetail accountId={account_id} eventId={event_id} actorNames={actorNames} />;
}
