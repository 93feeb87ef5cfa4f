import { and, eq, isNull } from "drizzle-orm";
import { checkoutSessions } from "@/db/schema";
import { columnTransition } from "@/lib/clock/due";
import { expireDueSession } from "./service";

/** An open session expires at its `expires_at` (`checkout.session.expired`, actor system). */
export const checkoutSessionExpiry = columnTransition({
  name: "checkout_session_expiry",
  table: checkoutSessions,
  id: checkoutSessions.id,
  accountId: checkoutSessions.accountId,
  dueAt: checkoutSessions.expiresAt,
  // Open, not deleted: the rows the partial index `checkout_sessions_expiry_idx` holds.
  pending: and(eq(checkoutSessions.status, "open"), isNull(checkoutSessions.deletedAt)),
  run: expireDueSession,
});
