import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts, customers, portalSessions } from "@/db/schema";
import { hashToken } from "@/lib/auth/tokens";
import { systemContext } from "@/lib/clock/service";
import { enqueueEmail } from "@/lib/email-outbox/enqueue";
import { notFound } from "@/lib/errors";
import { withChangeTransaction } from "@/lib/events/transaction";
import { newId } from "@/lib/ids";
import { newToken, PORTAL_LINK_TTL_MS, portalLinkUrl } from "./sessions";

/** The one answer to every sign-in link request, whether or not the email is a customer's. */
export const PORTAL_SIGN_IN_ANSWER = "If this email belongs to a customer of this account, a sign-in link is on its way. It works once, within an hour.";

/**
 * A customer asks for a portal sign-in link on the account's portal page (docs/emails.md). With
 * a customer of that email (case-insensitive; the newest when several share it), one transaction
 * makes a portal session (its link single-use, for an hour, kept hashed) and queues the
 * `portal_link` email carrying it. Without one, the same work up to the lookup and the same answer:
 * nothing tells a known email from an unknown one but the mailbox. The callers (the API operation
 * and the page's form) rate limit it first, per address and per email (`limitPortalSignIn`).
 */
export async function requestPortalSignIn(input: { accountId: string; email: string }): Promise<{ message: string }> {
  const db = await getDb();
  const [account] = await db.select().from(accounts).where(eq(accounts.id, input.accountId));
  if (!account) throw notFound("account", input.accountId);
  const ctx = systemContext(account);
  // Made on both paths, so that both take the same steps until the lookup.
  const token = newToken();
  const tokenHash = hashToken(token);
  await withChangeTransaction(async (tx) => {
    const [customer] = await tx
      .select({ id: customers.id, email: customers.email, locale: customers.preferredLocale })
      .from(customers)
      .where(and(eq(customers.accountId, account.id), sql`lower(${customers.email}) = ${input.email.trim().toLowerCase()}`, isNull(customers.deletedAt)))
      .orderBy(desc(customers.created))
      .limit(1);
    if (!customer) return;
    const now = ctx.now();
    const sessionId = newId("portalSession");
    await tx.insert(portalSessions).values({
      id: sessionId,
      accountId: account.id,
      customerId: customer.id,
      returnUrl: null,
      flow: null,
      linkTokenHash: tokenHash,
      expiresAt: new Date(now.getTime() + PORTAL_LINK_TTL_MS),
      created: now,
    });
    const queued = await enqueueEmail(tx, ctx, {
      type: "portal_link",
      to: [customer.email],
      causeKey: `portal_session:${sessionId}`,
      locale: customer.locale,
      number: "",
      customerId: customer.id,
      link: portalLinkUrl(token),
    });
    if (queued) tx.emailsAfterCommit();
  });
  return { message: PORTAL_SIGN_IN_ANSWER };
}
