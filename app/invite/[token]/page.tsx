import type { Metadata } from "next";
import Link from "next/link";
import { AcceptInvitationForm } from "@/components/auth/accept-invitation-form";
import { AuthFrame } from "@/components/auth/auth-frame";
import { findOpenInvitation } from "@/lib/teams/invitations";

export const metadata: Metadata = { title: "Join your team · Billing" };
// The invitation's state is read on every visit (used, revoked, expired).
export const dynamic = "force-dynamic";

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const invitation = await findOpenInvitation(token);
  if (!invitation) {
    return (
      <AuthFrame title="Invitation unavailable" footer={<Link className="font-medium underline" href="/signin">Sign in</Link>}>
        <p role="alert" className="text-sm text-slate-700">
          This invitation link does not work: it was used, revoked or has expired. Ask whoever invited you for a new one.
        </p>
      </AuthFrame>
    );
  }
  return <AcceptInvitationForm token={token} email={invitation.email} organization={invitation.organization} role={invitation.role} />;
}
