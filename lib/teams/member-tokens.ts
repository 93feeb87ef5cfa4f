import type { Permissions } from "@/lib/permissions";
import { and, eq, inArray, isNull } from "drizzle-orm";
import { getDb } from "@/db/client";
import { accounts, apiTokens, users } from "@/db/schema";
import { serializeApiToken } from "@/lib/api-tokens/service";
import { forgetCachedTokens } from "@/lib/auth/tokens";
import { accountClock } from "@/lib/time";
import type { ServiceContext, TokenKind } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction, type ChangeTransaction } from "@/lib/events/transaction";
import { realNow } from "@/lib/time";
import type { TeamContext } from "./members";
import { roleAllows, type Role } from "@/lib/auth/roles";

/**
 * The tokens that outrank their maker (docs/teams.md, "Who can mint what"): active tokens whose
 * creator was removed, or now holds a role that could not mint them. Listed on the Members page
 * with a one-click revoke; a removal may revoke them at once ("revoke their tokens").
 */
export type OutrankingToken = {
  id: string;
  accountId: string;
  livemode: boolean;
  name: string;
  kind: TokenKind;
  display: string;
  createdBy: string;
  /** The creator's role now, or null once removed. */
  creatorRole: Role | null;
  creatorEmail: string | null;
};

/** `mintRole`: the least role that may mint a kind (lib/server/token-minting.ts, which knows the operations). */
export async function tokensOutrankingTheirMaker(organizationId: string, mintRole: (kind: TokenKind, permissions: Permissions | null) => Role): Promise<OutrankingToken[]> {
  const db = await getDb();
  const rows = await db
    .select({ token: apiTokens, livemode: accounts.livemode, role: users.role, email: users.email })
    .from(apiTokens)
    .innerJoin(accounts, eq(accounts.id, apiTokens.accountId))
    .leftJoin(users, eq(users.id, apiTokens.createdBy))
    .where(and(eq(accounts.organizationId, organizationId), isNull(apiTokens.revokedAt)))
    .orderBy(apiTokens.created, apiTokens.id);
  return rows
    // Tokens a user made (`user_…`): the demo tokens of `npm run seed` and the tests' have no member behind them.
    .filter(({ token }) => token.createdBy?.startsWith("user_"))
    .filter(({ token, role }) => role === null || !roleAllows(role, mintRole(token.kind, token.permissions)))
    .map(({ token, livemode, role, email }) => ({
      id: token.id,
      accountId: token.accountId,
      livemode,
      name: token.name,
      kind: token.kind,
      display: `${token.displayPrefix}…${token.lastFour}`,
      createdBy: token.createdBy!,
      creatorRole: role,
      creatorEmail: email,
    }));
}

function userContext(account: typeof accounts.$inferSelect, userId: string): ServiceContext {
  return { accountId: account.id, livemode: account.livemode, actor: { type: "user", id: userId }, correlationId: null, now: accountClock(account.clockOffsetMs) };
}

/**
 * Revokes tokens of the organization's accounts, each with its `api_token.revoked` event (actor:
 * the member acting), in the caller's change when there is one (a removal). `which`: the tokens
 * by id, or every active token a user made.
 */
export async function revokeOrganizationTokens(
  ctx: TeamContext,
  which: { tokenIds: string[] } | { createdBy: string },
  within?: ChangeTransaction,
): Promise<number> {
  const touched = new Set<string>();
  const revoked = await withChangeTransaction(async (tx) => {
    const rows = await tx
      .select({ token: apiTokens, account: accounts })
      .from(apiTokens)
      .innerJoin(accounts, eq(accounts.id, apiTokens.accountId))
      .where(
        and(
          eq(accounts.organizationId, ctx.organizationId),
          isNull(apiTokens.revokedAt),
          "tokenIds" in which ? inArray(apiTokens.id, which.tokenIds.length > 0 ? which.tokenIds : [""]) : eq(apiTokens.createdBy, which.createdBy),
        ),
      )
      .for("update", { of: apiTokens });
    for (const { token, account } of rows) {
      const [after] = await tx.update(apiTokens).set({ revokedAt: realNow() }).where(eq(apiTokens.id, token.id)).returning();
      if (!after) continue;
      await emitEvent(tx, userContext(account, ctx.userId), {
        type: "api_token.revoked",
        aggregateId: after.id,
        data: serializeApiToken(after),
        previousData: serializeApiToken(token),
      });
      touched.add(account.id);
    }
    return rows.length;
  }, within);
  for (const accountId of touched) forgetCachedTokens(accountId);
  return revoked;
}

/** One token, from the Members page's list: a developer may revoke tokens, as on the API Tokens page. */
export async function revokeOutrankingToken(ctx: TeamContext, tokenId: string): Promise<void> {
  const revoked = await revokeOrganizationTokens(ctx, { tokenIds: [tokenId] });
  if (revoked === 0) throw new ServiceError("not_found", `No such active token in your organization: '${tokenId}'.`);
}
