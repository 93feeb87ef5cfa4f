import type { Executor } from "@/db/client";
import type { ServiceContext } from "@/lib/context";

/**
 * One kind of change that time makes (a subscription's period ends, a checkout session expires,
 * an invoice passes its due date, …). Each kind is derived from entity state — no timer rows —
 * so a transition missed while the process was down is simply still due when it comes back.
 */
export type TimeTransition = {
  name: string;
  /** The earliest instant something of this kind falls due in the account, or null when nothing will. */
  nextDue(executor: Executor, accountId: string): Promise<Date | null>;
  /**
   * Finds what of this kind is due at `ctx.now()` in the account (at most DUE_BATCH items), reading
   * on `executor` only: the clock reads every kind's at once (one round trip, db/client.ts
   * `readTogether`). Answers the run of what it found, which returns how many items changed
   * something. Each item is re-checked under its row lock when it runs, so an item another kind's
   * run (or a concurrent runner) changed since it was found is skipped, never applied twice.
   */
  findDue(executor: Executor, ctx: ServiceContext): Promise<() => Promise<number>>;
  /** Accounts that have something of this kind due by `realNow` plus their own clock offset. */
  dueAccounts(executor: Executor, realNow: Date): Promise<string[]>;
};
