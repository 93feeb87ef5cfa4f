import { eq } from "drizzle-orm";
import { getDb, readTogether } from "@/db/client";
import { accounts } from "@/db/schema";
import type { ServiceContext, Verb } from "@/lib/context";
import { forgetCachedTokens } from "@/lib/auth/tokens";
import { notFound, ServiceError, validationFailed } from "@/lib/errors";
import { one } from "@/lib/rows";
import { BACKGROUND_WAIT_MS, backgroundWorkSettled } from "./background-work";
import { waitingForHeldRows } from "./due";
import { timeTransitions } from "./registry";
import { transitionScheduledAt } from "./schedule";
import type { TestClockObject } from "./schema";
import { accountClock, DAY_MS } from "@/lib/time";
import { log, safeError } from "@/lib/log";

/** An advance may run at most this many transitions: a runaway (a transition that is always due) stops with a 409. */
const MAX_TRANSITIONS_PER_ADVANCE = 10_000;
/** How far one advance may move a test clock: long enough for a multi-year subscription story. */
export const MAX_ADVANCE_MS = 5 * 366 * DAY_MS;

type AccountClockRow = { id: string; livemode: boolean; clockOffsetMs: number };

async function accountRow(accountId: string): Promise<AccountClockRow> {
  const db = await getDb();
  const [row] = await db
    .select({ id: accounts.id, livemode: accounts.livemode, clockOffsetMs: accounts.clockOffsetMs })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!row) throw notFound("account", accountId);
  return row;
}

/** The context time-driven transitions act in: the system, on the account's own clock. */
export function systemContext(account: AccountClockRow, correlationId: string | null = null): ServiceContext {
  return {
    accountId: account.id,
    livemode: account.livemode,
    actor: { type: "system", id: null },
    correlationId,
    now: accountClock(account.clockOffsetMs),
  };
}

const RUNS = Symbol.for("billing-service.clock-runs");
const ADVANCING = Symbol.for("billing-service.clock-advancing");
type GlobalWithRuns = typeof globalThis & { [RUNS]?: Map<string, Promise<unknown>>; [ADVANCING]?: Set<string> };

/** Accounts whose test clock this process is advancing: the advance runs their transitions itself, at each stop. */
function advancing(): Set<string> {
  const store = globalThis as GlobalWithRuns;
  return (store[ADVANCING] ??= new Set());
}

/**
 * Runs `work` after every earlier run of the same account in this process has finished. The
 * ticker, an Inngest wake-up and a test clock advance may reach one account at once; rows are
 * locked `skip locked`, so without this a runner could skip an item another one is still running,
 * and an advance would see it stay due until its waiting pass (advanceTo). (Across processes the
 * row locks keep every transition single, and the advance's waiting pass waits for the other runner.)
 */
async function serially<T>(accountId: string, work: () => Promise<T>): Promise<T> {
  const store = globalThis as GlobalWithRuns;
  const runs = (store[RUNS] ??= new Map());
  const previous = runs.get(accountId) ?? Promise.resolve();
  const current = previous.catch(() => undefined).then(work);
  runs.set(accountId, current);
  try {
    return await current;
  } finally {
    if (runs.get(accountId) === current) runs.delete(accountId);
  }
}

/** Runs every transition due at the account's current time, kind by kind, until none is left. */
export async function runDueTransitions(ctx: ServiceContext): Promise<number> {
  return serially(ctx.accountId, async () => {
    let total = 0;
    for (;;) {
      let ran = 0;
      // What every kind has due, found in one round trip; then run kind by kind, in their order.
      const runs = await readTogether(await getDb(), timeTransitions().map((transition) => (tx) => transition.findDue(tx, ctx)));
      for (const run of runs) ran += await run();
      total += ran;
      // A transition can make another one due (a renewal that fails schedules dunning): go again.
      if (ran === 0 || total >= MAX_TRANSITIONS_PER_ADVANCE) return total;
    }
  });
}

/** The earliest instant anything falls due in the account, or null. */
export async function nextDueInstant(accountId: string): Promise<Date | null> {
  // Every kind's earliest instant in one round trip (an advance asks at each stop).
  const dues = await readTogether(await getDb(), timeTransitions().map((transition) => (tx) => transition.nextDue(tx, accountId)));
  let earliest: Date | null = null;
  for (const due of dues) if (due && (!earliest || due.getTime() < earliest.getTime())) earliest = due;
  return earliest;
}

async function setOffset(accountId: string, offsetMs: number): Promise<AccountClockRow> {
  const db = await getDb();
  const row = one(await db
    .update(accounts)
    .set({ clockOffsetMs: offsetMs })
    .where(eq(accounts.id, accountId))
    .returning({ id: accounts.id, livemode: accounts.livemode, clockOffsetMs: accounts.clockOffsetMs }));
  // Token look-ups carry the account's clock: this process sees the move at once, others within 1 s.
  forgetCachedTokens(accountId);
  return row;
}

export type ClockState = { accountId: string; now: Date; offsetMs: number; transitionsRun: number; nextDue: Date | null };

export async function getClock({ ctx }: Verb<Record<string, never>>): Promise<ClockState> {
  const account = await accountRow(ctx.accountId);
  const now = accountClock(account.clockOffsetMs)();
  return { accountId: account.id, now, offsetMs: account.clockOffsetMs, transitionsRun: 0, nextDue: await nextDueInstant(account.id) };
}

/**
 * The test clock: moves a sandbox account's time forward to `to`, stopping at every instant where
 * something falls due and running it there, in time order — so a year of a subscription (trial
 * end, renewals, dunning) happens in seconds, exactly as it would have in real time.
 */
export async function advanceClock({ ctx, input }: Verb<{ to: Date }>): Promise<ClockState> {
  if (ctx.livemode) {
    throw new ServiceError("forbidden", "Test clocks exist only on sandbox accounts; a live account's time is real time.");
  }
  const from = ctx.now();
  if (input.to.getTime() <= from.getTime()) {
    throw validationFailed([{ field: "to", message: `Must be after the account's current time, ${from.toISOString()}.` }]);
  }
  if (input.to.getTime() - from.getTime() > MAX_ADVANCE_MS) {
    throw validationFailed([{ field: "to", message: "One advance moves the clock at most 5 years." }]);
  }
  if (advancing().has(ctx.accountId)) {
    throw new ServiceError("conflict", "The account's clock is being advanced by another request; retry when it has finished.");
  }
  advancing().add(ctx.accountId);
  try {
    return await advanceTo(ctx, input.to);
  } finally {
    advancing().delete(ctx.accountId);
  }
}

/** Waits for the account's background work (lib/clock/background-work.ts); past the bound, says so and goes on. */
async function settleBackgroundWork(accountId: string): Promise<void> {
  if (!(await backgroundWorkSettled(accountId))) {
    log().warn({ accountId, waitedMs: BACKGROUND_WAIT_MS }, "test clock advance went on with background work (charges) still out");
  }
}

async function advanceTo(ctx: ServiceContext, to: Date): Promise<ClockState> {
  let account = await accountRow(ctx.accountId);
  let transitionsRun = 0;
  let lastDue: Date | null = null;
  let stalled = false;
  let lastPassWaited = false;
  for (;;) {
    const due = await nextDueInstant(account.id);
    if (!due || due.getTime() > to.getTime()) break;
    const again: boolean = stalled && lastDue !== null && due.getTime() <= lastDue.getTime();
    // Nothing ran and the same instant is still due: either another transaction holds what is due
    // (a merchant's cancellation of the subscription being renewed; the runners skip held rows) or
    // a transition stays due after running. One more pass whose locks wait for their holders tells
    // the two apart: the first then runs (or finds its item no longer due), the second is a bug.
    if (again && lastPassWaited) {
      throw new ServiceError("conflict", `The clock stopped at ${due.toISOString()}: a transition stays due after running.`);
    }
    lastPassWaited = again;
    // Stop the clock at the due instant (never move it backwards), and run what is due there with
    // the time held at that instant, so everything it does is stamped exactly then (a renewal at
    // the period end, a retry at its scheduled time), as if it had run on time in real time.
    const accountNow = Date.now() + account.clockOffsetMs;
    const stopAt = new Date(Math.max(due.getTime(), accountNow));
    account = await setOffset(account.id, Math.max(account.clockOffsetMs, stopAt.getTime() - Date.now()));
    const stopContext = { ...systemContext(account, ctx.correlationId), now: () => new Date(stopAt) };
    const runStop = () => runDueTransitions(stopContext);
    const ran: number = await (again ? waitingForHeldRows(runStop) : runStop());
    // What the stop started and did not wait for (a renewal's charge) ends before the clock moves on.
    await settleBackgroundWork(account.id);
    transitionsRun += ran;
    if (transitionsRun >= MAX_TRANSITIONS_PER_ADVANCE) {
      throw new ServiceError("conflict", `The clock stopped at ${due.toISOString()} after ${transitionsRun} transitions.`);
    }
    stalled = ran === 0;
    lastDue = due;
  }
  account = await setOffset(account.id, Math.max(account.clockOffsetMs, to.getTime() - Date.now()));
  const after = systemContext(account, ctx.correlationId);
  transitionsRun += await runDueTransitions(after);
  await settleBackgroundWork(account.id);
  const nextDue = await nextDueInstant(account.id);
  // Wake-ups announced before the advance were for real instants of the old offset: announce anew.
  if (nextDue) await transitionScheduledAt(account.id, new Date(nextDue.getTime() - account.clockOffsetMs));
  return { accountId: account.id, now: after.now(), offsetMs: account.clockOffsetMs, transitionsRun, nextDue };
}

/** Accounts with something due by `realNow` on their own clock. */
export async function findDueAccounts(realNow: Date = new Date()): Promise<string[]> {
  const due = await readTogether(await getDb(), timeTransitions().map((transition) => (tx) => transition.dueAccounts(tx, realNow)));
  return [...new Set(due.flat())].sort();
}

/**
 * The sweep (embedded ticker, serverless cron): runs what is due in every account, on each
 * account's clock. One account's failure is logged and does not hold up the others; its
 * transitions stay due. With a `deadline` (ms), no account is started after it (`accountsLeft`).
 */
export async function runAllDueTransitions(
  options: { deadline?: number } = {},
): Promise<{ accounts: number; transitionsRun: number; accountsLeft: number }> {
  const ids = await findDueAccounts();
  let transitionsRun = 0;
  for (const [index, id] of ids.entries()) {
    if (options.deadline !== undefined && Date.now() >= options.deadline) {
      return { accounts: ids.length, transitionsRun, accountsLeft: ids.length - index };
    }
    try {
      transitionsRun += await runAccountDueTransitions(id);
    } catch (error) {
      log().error({ account_id: id, err: safeError(error) }, "time-driven transitions failed; they stay due");
    }
  }
  return { accounts: ids.length, transitionsRun, accountsLeft: 0 };
}

/** Runs what is due in one account now (the Inngest function woken by `step.sleepUntil`). */
export async function runAccountDueTransitions(accountId: string): Promise<number> {
  // An advance in progress stamps each transition with its exact due instant; it will run these.
  if (advancing().has(accountId)) return 0;
  return runDueTransitions(systemContext(await accountRow(accountId)));
}

/** The real instant the account's next transition falls due (its clock's instant less its offset), or null. */
export async function nextDueRealInstant(accountId: string): Promise<Date | null> {
  const account = await accountRow(accountId);
  const due = await nextDueInstant(accountId);
  return due ? new Date(due.getTime() - account.clockOffsetMs) : null;
}

export function serializeClock(state: ClockState): TestClockObject {
  return {
    object: "test_clock",
    account: state.accountId,
    now: state.now.toISOString(),
    offset_ms: state.offsetMs,
    transitions_run: state.transitionsRun,
    next_due: state.nextDue?.toISOString() ?? null,
  };
}
