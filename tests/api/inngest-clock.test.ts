import { InngestTestEngine } from "@inngest/test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { log } from "@/lib/log";
import { inngest, transitionsDue } from "@/inngest/client";
import { clockTick } from "@/inngest/functions/clock-tick";
import { runDueTransitions } from "@/inngest/functions/run-due-transitions";
import { ClockTicker } from "@/lib/clock/ticker";
import { transitionScheduled } from "@/lib/clock/schedule";
import { embeddedJobs } from "@/lib/jobs/embedded";
import { inngestJobs } from "@/lib/jobs/inngest";
import { api, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { eventually } from "../helpers/receiver";

const DAY = 86_400_000;

afterEach(() => {
  vi.restoreAllMocks();
});

/** A sandbox account with one subscription whose trial ends `trialDays` from now (real time: its clock is not moved). */
async function accountWithTrial(trialDays: number) {
  const merchant = await newMerchant();
  const client = api(merchant.sandboxSecret.token);
  const account = merchant.sandboxAccountId;
  const product = (await client.post(`/${account}/products`, { name: "Plan" })).body.id;
  const price = (await client.post(`/${account}/prices`, { product, currency: "usd", unit_amount_atom: 900, type: "recurring", recurring: { interval: "month" } })).body.id;
  const customer = (await client.post(`/${account}/customers`, { email: "clock@example.com" })).body.id;
  const created = await client.post(`/${account}/subscriptions`, { customer, items: [{ price }], trial_period_days: trialDays });
  expect(created.status, created.text).toBe(201);
  const events = async (): Promise<Json[]> => (await client.get(`/${account}/events?aggregate_id=${created.body.id}`)).body.items;
  return { account, sub: created.body, events };
}

const wakeUpId = (accountId: string, at: Date) => `clock-${accountId}-${Math.ceil(at.getTime() / 1000)}`;

describe("clock-tick (Inngest cron)", () => {
  it("wakes each account with something due at the tick, with an id naming the account and the second", async () => {
    // Due within two days (trial_will_end three days before a four-day trial ends): found by a
    // tick two days ahead, yet invisible to the app's own ticker, which runs on real time.
    const due = await accountWithTrial(4);
    const idle = await accountWithTrial(30);
    const tick = new Date(Math.floor((Date.now() + 2 * DAY) / 1000) * 1000);
    const run = await new InngestTestEngine({
      function: clockTick,
      events: [{ name: "inngest/scheduled.timer", data: {}, ts: tick.getTime() }],
      steps: [{ id: "wake-accounts", handler: () => ({ ids: [] }) }],
    }).execute();

    expect(run.error).toBeUndefined();
    const [[stepId, events]] = run.ctx.step.sendEvent.mock.calls as unknown as [[string, Json[]]];
    expect(stepId).toBe("wake-accounts");
    expect(events).toContainEqual(
      expect.objectContaining({ name: transitionsDue.name, id: wakeUpId(due.account, tick), data: { accountId: due.account, at: tick.toISOString() } }),
    );
    expect(events.map((event) => event.data.accountId)).not.toContain(idle.account);
    expect(run.result).toEqual({ accounts: events.length, listCountDeltasFolded: expect.any(Number), rateLimitsPurged: expect.any(Number) });
  });
});

describe("run-due-transitions (Inngest function)", () => {
  const engine = (accountId: string, at: Date) =>
    new InngestTestEngine({
      function: runDueTransitions,
      events: [{ name: transitionsDue.name, data: { accountId, at: at.toISOString() } }],
      // Sleeps never return in the test engine unless mocked; the hand-over must not reach a real server.
      steps: [
        { id: "until-due", handler: () => null },
        { id: "schedule-next", handler: () => ({ ids: [] }) },
      ],
    });

  it("sleeps until the announced instant, runs nothing when nothing is due, and hands over the account's next due instant", async () => {
    const { account, sub, events } = await accountWithTrial(10);
    const at = new Date(Date.now() + 60_000);
    const run = await engine(account, at).execute();

    expect(run.error).toBeUndefined();
    expect(run.ctx.step.sleepUntil.mock.calls).toEqual([["until-due", at.toISOString()]]);
    const trialWillEnd = new Date(new Date(sub.trial_end).getTime() - 3 * DAY);
    expect(run.result).toEqual({ transitionsRun: 0, next: trialWillEnd.toISOString() });
    const [[stepId, next]] = run.ctx.step.sendEvent.mock.calls as unknown as [[string, Json]];
    expect(stepId).toBe("schedule-next");
    expect(next).toMatchObject({
      name: transitionsDue.name,
      id: wakeUpId(account, trialWillEnd),
      data: { accountId: account, at: new Date(Math.ceil(trialWillEnd.getTime() / 1000) * 1000).toISOString() },
    });
    expect((await events()).map((e) => e.type)).toEqual(["customer.subscription.created"]);
  });

  it("runs what is due in the account once, even racing the app's own ticker", async () => {
    // A one-day trial: trial_will_end and invoice.upcoming are due at once.
    const { account, events } = await accountWithTrial(1);
    const run = await engine(account, new Date()).execute();
    expect(run.error).toBeUndefined();
    // The transitions ran here or in the app's ticker (both lock each row and re-check it): exactly once.
    const types = await eventually(
      async () => (await events()).map((e) => e.type),
      (list) => list.includes("customer.subscription.trial_will_end"),
    );
    expect(types.filter((t) => t === "customer.subscription.trial_will_end")).toHaveLength(1);
    // What is left is the trial's end, a day ahead.
    expect(run.result).toMatchObject({ next: expect.any(String) });
  });
});

describe("job providers: transitionScheduled", () => {
  it("inngest sends a wake-up whose id dedupes the same second", async () => {
    const send = vi.spyOn(inngest, "send").mockResolvedValue({ ids: ["x"] });
    const at = new Date("2027-03-01T10:00:00.250Z");
    await inngestJobs.transitionScheduled("acct_prod_x", at);
    await inngestJobs.transitionScheduled("acct_prod_x", new Date("2027-03-01T10:00:00.900Z"));
    const sent = send.mock.calls.map(([payload]) => payload) as Json[];
    expect(sent).toEqual([
      expect.objectContaining({ name: transitionsDue.name, id: "clock-acct_prod_x-1803895201", data: { accountId: "acct_prod_x", at: "2027-03-01T10:00:01.000Z" } }),
      expect.objectContaining({ id: "clock-acct_prod_x-1803895201", data: { accountId: "acct_prod_x", at: "2027-03-01T10:00:01.000Z" } }),
    ]);
  });

  it("converts the account's time to real time, and a failing provider only logs", async () => {
    const scheduled = vi.spyOn(embeddedJobs, "transitionScheduled").mockResolvedValue();
    const offset = 40 * DAY;
    const ctx = { accountId: "acct_prod_y", livemode: false, actor: { type: "system" as const, id: null }, correlationId: null, now: () => new Date(Date.now() + offset) };
    const accountTime = new Date(Date.now() + offset + 5 * DAY);
    await transitionScheduled(ctx, accountTime);
    const [accountId, realAt] = scheduled.mock.calls[0]!;
    expect(accountId).toBe("acct_prod_y");
    expect(Math.abs(realAt.getTime() - (accountTime.getTime() - offset))).toBeLessThan(1000);

    scheduled.mockRejectedValue(new Error("provider down"));
    // Logs go through pino (lib/log.ts).
    const logged = vi.spyOn(log(), "error").mockImplementation(() => undefined);
    await expect(transitionScheduled(ctx, accountTime)).resolves.toBeUndefined();
    expect(logged).toHaveBeenCalled();
  });
});

describe("the embedded ticker", () => {
  it("sweeps at start, never overlaps itself, logs a failing sweep, and is woken by a transition already due", async () => {
    const ticker = new ClockTicker();
    let release: () => void = () => undefined;
    let calls = 0;
    const sweep = vi.fn(async () => {
      calls++;
      if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
      if (calls === 2) throw new Error("database down");
      return { accounts: 0, transitionsRun: 0 };
    });
    // The service logs through pino (lib/log.ts), the error reduced to what may be logged.
    const logged = vi.spyOn(log(), "error").mockImplementation(() => undefined);
    ticker.start(sweep, 3_600_000);
    try {
      expect(sweep).toHaveBeenCalledTimes(1);
      // Woken three times during the first sweep: one more sweep afterwards, not three at once.
      ticker.wake();
      ticker.wake();
      ticker.wake();
      expect(sweep).toHaveBeenCalledTimes(1);
      release();
      await vi.waitFor(() =>
        expect(logged).toHaveBeenCalledWith(
          expect.objectContaining({ err: expect.objectContaining({ message: "database down" }) }),
          "clock tick failed",
        ),
      );
      expect(sweep).toHaveBeenCalledTimes(2);

      // The embedded provider wakes the process's ticker only for what is due already.
      const { clockTicker } = await import("@/lib/clock/ticker");
      const wake = vi.spyOn(clockTicker(), "wake");
      await embeddedJobs.transitionScheduled("acct_prod_z", new Date(Date.now() + DAY));
      expect(wake).not.toHaveBeenCalled();
      await embeddedJobs.transitionScheduled("acct_prod_z", new Date(Date.now() - 1000));
      expect(wake).toHaveBeenCalledTimes(1);
    } finally {
      ticker.stop();
    }
    expect(ticker.running).toBe(false);
  });
});
