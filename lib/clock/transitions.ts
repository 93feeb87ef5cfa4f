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
   * Runs everything of this kind that is due at `ctx.now()` in the account; returns how many it
   * ran. Each item is re-checked under its row lock, so concurrent runners never apply it twice.
   */
  runDue(ctx: ServiceContext): Promise<number>;
  /** Accounts that have something of this kind due by `realNow` plus their own clock offset. */
  dueAccounts(executor: Executor, realNow: Date): Promise<string[]>;
};
