import { cache } from "react";
import { getServerSession } from "next-auth";
import { notFound, redirect } from "next/navigation";
import { sessionOptions } from "@/lib/auth/session-options";
import { findOrganizationAccount, organizationAccounts, type OrganizationAccount } from "@/lib/auth/users";

/** The signed-in user, or a redirect to the sign-in page. */
export async function requireUser() {
  const session = await getServerSession(sessionOptions());
  if (!session?.user?.id || !session.user.organizationId) redirect("/signin");
  return session.user;
}

/**
 * The user and the account of the URL, which must be one of their organization's (else 404).
 * Cached per request: the account layout and its pages both ask.
 */
export const requireAccount = cache(
  async (
    accountId: string,
  ): Promise<{
    user: Awaited<ReturnType<typeof requireUser>>;
    account: OrganizationAccount;
    accounts: OrganizationAccount[];
  }> => {
    const user = await requireUser();
    const account = await findOrganizationAccount(user.organizationId, accountId);
    if (!account) notFound();
    return { user, account, accounts: await organizationAccounts(user.organizationId) };
  },
);
