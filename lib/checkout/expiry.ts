import { and, asc, eq, isNull, lte, min, sql } from "drizzle-orm";
import { getDb, type Executor } from "@/db/client";
import { accounts, checkoutSessions } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import type { TimeTransition } from "@/lib/clock/transitions";
import { expireDueSession } from "./service";

/** How many due sessions one run takes; the clock runs again while any is left. */
const BATCH = 100;

/** Open, not deleted: the rows the partial index `checkout_sessions_expiry_idx` holds. */
const openSessions = and(eq(checkoutSessions.status, "open"), isNull(checkoutSessions.deletedAt));

/** An open session expires at its `expires_at` (`checkout.session.expired`, actor system). */
export const checkoutSessionExpiry: TimeTransition = {
  name: "checkout_session_expiry",

  async nextDue(executor: Executor, accountId: string): Promise<Date | null> {
    const [row] = await executor
      .select({ due: min(checkoutSessions.expiresAt) })
      .from(checkoutSessions)
      .where(and(eq(checkoutSessions.accountId, accountId), openSessions));
    return row?.due ?? null;
  },

  async runDue(ctx: ServiceContext): Promise<number> {
    const db = await getDb();
    const due = await db
      .select({ id: checkoutSessions.id })
      .from(checkoutSessions)
      .where(and(eq(checkoutSessions.accountId, ctx.accountId), openSessions, lte(checkoutSessions.expiresAt, ctx.now())))
      .orderBy(asc(checkoutSessions.expiresAt), asc(checkoutSessions.id))
      .limit(BATCH);
    let ran = 0;
    for (const { id } of due) if (await expireDueSession(ctx, id)) ran++;
    return ran;
  },

  async dueAccounts(executor: Executor, realNow: Date): Promise<string[]> {
    const rows = await executor
      .selectDistinct({ id: checkoutSessions.accountId })
      .from(checkoutSessions)
      .innerJoin(accounts, eq(accounts.id, checkoutSessions.accountId))
      .where(
        and(
          openSessions,
          // The account's own clock: real time plus its test-clock offset.
          lte(checkoutSessions.expiresAt, sql`${realNow.toISOString()}::timestamptz + ${accounts.clockOffsetMs} * interval '1 millisecond'`),
        ),
      );
    return rows.map((row) => row.id);
  },
};
