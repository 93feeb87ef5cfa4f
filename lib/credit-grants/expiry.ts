import { and, eq, isNotNull } from "drizzle-orm";
import { creditGrants } from "@/db/schema";
import { columnTransition } from "@/lib/clock/due";
import { expireDueGrant } from "./service";

/** An active grant expires at its `expires_at` on the account's clock (`credit_grant.expired`, actor system). */
export const creditGrantExpiry = columnTransition({
  name: "credit_grant_expiry",
  table: creditGrants,
  id: creditGrants.id,
  accountId: creditGrants.accountId,
  dueAt: creditGrants.expiresAt,
  // The rows the partial index `credit_grants_expiry_idx` holds.
  pending: and(eq(creditGrants.status, "active"), isNotNull(creditGrants.expiresAt)),
  run: expireDueGrant,
});
