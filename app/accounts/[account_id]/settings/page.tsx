import type { Metadata } from "next";
import { requireAccount } from "@/app/_lib/session";
import { MembersSection } from "@/components/settings/members-section";
import { ChangePasswordForm } from "@/components/settings/change-password-form";
import { SellerDetails } from "@/components/settings/seller-details";
import { PortalSection } from "@/components/settings/portal-section";
import { EmailSettings } from "@/components/settings/email-settings";
import { PageHeader } from "@/components/ui";
import { listInvitations } from "@/lib/teams/invitations";
import { listMembers } from "@/lib/teams/members";
import { tokensOutrankingTheirMaker } from "@/lib/teams/member-tokens";
import { roleToMint } from "@/lib/server/token-minting";

export const metadata: Metadata = { title: "Settings · Billing Service" };

/** The password is the user's; members and invitations are the organization's (every role reads them). */
export default async function Page({ params }: { params: Promise<{ account_id: string }> }) {
  const { account_id } = await params;
  const { user } = await requireAccount(account_id);
  const [members, invitations, outranking] = await Promise.all([
    listMembers(user.organizationId),
    listInvitations(user.organizationId),
    tokensOutrankingTheirMaker(user.organizationId, (kind, permissions) => roleToMint(kind, permissions).role),
  ]);
  return (
    <>
      <PageHeader title="Settings" />
      <div className="space-y-6">
        <MembersSection
          currentUserId={user.id}
          outrankingTokens={outranking}
          role={user.role}
          members={members.map((member) => ({ ...member, created: member.created.toISOString() }))}
          invitations={invitations.map((invitation) => ({
            ...invitation,
            created: invitation.created.toISOString(),
            expiresAt: invitation.expiresAt.toISOString(),
          }))}
        />
        <SellerDetails accountId={account_id} />
        <PortalSection accountId={account_id} />
        <EmailSettings accountId={account_id} />
        <ChangePasswordForm />
      </div>
    </>
  );
}
