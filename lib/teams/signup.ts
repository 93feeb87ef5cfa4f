import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { getDb } from "@/db/client";
import { users } from "@/db/schema";
import { config } from "@/lib/config";
import { ServiceError } from "@/lib/errors";

export type SignupMode = "open" | "invite" | "closed";

/** Serializes the first sign-ups, so that two of them cannot both see an empty instance. */
const FIRST_USER_LOCK = 0x7e_a4_51;

async function hasUsers(executor: Executor): Promise<boolean> {
  const [row] = await executor.select({ one: sql<number>`1` }).from(users).limit(1);
  return row !== undefined;
}

/** `SIGNUP`, or its default: `invite` in production once a user exists, else `open` (docs/teams.md). */
export async function signupMode(executor?: Executor): Promise<SignupMode> {
  const setting = config().signup;
  if (setting) return setting;
  if (!config().production) return "open";
  return (await hasUsers(executor ?? (await getDb()))) ? "invite" : "open";
}

/** Whether the sign-up page may create a new organization now (the first user always may, but with `closed`). */
export async function signUpOpen(executor?: Executor): Promise<boolean> {
  const db = executor ?? (await getDb());
  const mode = await signupMode(db);
  if (mode === "open") return true;
  if (mode === "closed") return false;
  return !(await hasUsers(db));
}

/**
 * Inside the transaction that creates a new organization by sign-up (password or OAuth): refuses
 * unless SIGNUP allows it. Invitations do not come here: they join an existing organization.
 */
export async function assertSignUpAllowed(tx: Executor): Promise<void> {
  if ((await signupMode(tx)) === "open") return;
  await tx.execute(sql`select pg_advisory_xact_lock(${FIRST_USER_LOCK})`);
  if (await signUpOpen(tx)) return;
  throw new ServiceError(
    "forbidden",
    (await signupMode(tx)) === "closed"
      ? "Sign-up is closed on this instance. Ask an admin of your organization for an invitation."
      : "Sign-up is by invitation only on this instance. Ask an admin of your organization for an invitation link.",
  );
}
