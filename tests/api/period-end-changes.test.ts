import { describe, expect, it } from "vitest";
import { api, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { apiDatabase } from "../helpers/api-database";
import { eventually } from "../helpers/receiver";

/*
 * Changes at the period end (docs/billing.md, "Changes at the period end"): a change request with
 * `effective: period_end` is scheduled by apply, listed on its subscription, cancellable until the
 * renewal applies it (on the sandbox test clock here), and dropped when the subscription ends first.
 */

const MINUTE = 60_000;
const sql = apiDatabase();
const iso = (ms: number) => new Date(ms).toISOString();

/** Every test has its own sandbox account: the test clock moves a whole account. */
async function sandbox() {
  const merchant = await newMerchant();
  const client = api(merchant.sandboxSecret.token);
  const account = merchant.sandboxAccountId;
  const product = (await client.post(`/${account}/products`, { name: "Plan" })).body.id as string;
  const price = async (amount: number) => {
    const response = await client.post(`/${account}/prices`, { product, currency: "usd", unit_amount_atom: amount, type: "recurring", recurring: { interval: "month" } });
    expect(response.status, response.text).toBe(201);
    return response.body.id as string;
  };
  const [pro, basic, addon] = await Promise.all([price(3000), price(1000), price(500)]);
  const subscribe = async (priceId = pro, extra: Json = {}) => {
    const customer = (await client.post(`/${account}/customers`, { email: "later@example.com" })).body.id;
    const response = await client.post(`/${account}/subscriptions`, { customer, items: [{ price: priceId }], default_payment_method: "pm_sandbox_succeeds", ...extra });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const requests = (sub: Json) => `/${account}/subscriptions/${sub.id}/change-requests` as const;
  const create = async (sub: Json, steps: Json[], effective?: string) => {
    const response = await client.post(requests(sub), { steps, ...(effective ? { effective } : {}) });
    expect(response.status, response.text).toBe(201);
    return response.body;
  };
  const apply = (sub: Json, scr: Json) => client.post(`${requests(sub)}/${scr.id}/apply`, {});
  const cancelRequest = (sub: Json, scr: Json) => client.post(`${requests(sub)}/${scr.id}/cancel`, {});
  const schedule = async (sub: Json, steps: Json[]) => {
    const applied = await apply(sub, await create(sub, steps, "period_end"));
    expect(applied.status, applied.text).toBe(200);
    return applied.body;
  };
  const getSub = async (sub: Json) => (await client.get(`/${account}/subscriptions/${sub.id}`)).body;
  const getRequest = async (sub: Json, scr: Json) => (await client.get(`${requests(sub)}/${scr.id}`)).body;
  const advance = async (to: number) => {
    const response = await client.post(`/${account}/test-clock/advance`, { to: iso(to) });
    expect(response.status, response.text).toBe(200);
  };
  const timeline = async (id: string): Promise<Json[]> => [...(await client.get(`/${account}/events?aggregate_id=${id}&limit=100`)).body.items].reverse();
  const invoicesOf = async (sub: Json): Promise<Json[]> =>
    [...(await client.get(`/${account}/invoices?customer=${sub.customer}&limit=100`)).body.items].reverse();
  return { client, account, prices: { pro, basic, addon }, subscribe, create, apply, cancelRequest, schedule, getSub, getRequest, advance, timeline, invoicesOf };
}

describe("a change at the period end", () => {
  it("is scheduled by apply (nothing charged or changed), listed on the subscription, and applied by the test clock's renewal before the new period's invoice", async () => {
    const s = await sandbox();
    const sub = await s.subscribe();
    const item = sub.items[0].id;
    const end = Date.parse(sub.current_period_end);

    const scr = await s.create(sub, [{ type: "switch_price", item, price: s.prices.basic }, { type: "add_item", price: s.prices.addon }], "period_end");
    expect(scr).toMatchObject({ status: "open", effective: "period_end", effective_at: null, amount_due_now_atom: 0, next_invoice_amount_atom: 1500, cancellation_reason: null });

    const applied = await s.apply(sub, scr);
    expect(applied.status, applied.text).toBe(200);
    expect(applied.body).toMatchObject({ status: "scheduled", effective_at: sub.current_period_end, invoice: null, payment_collected_at: null, applied_steps: 0, applied_at: null });
    const pending = await s.getSub(sub);
    expect(pending.items).toEqual(sub.items);
    expect(pending.pending_changes).toEqual([{ change_request: scr.id, steps: scr.steps, effective_at: sub.current_period_end }]);
    expect((await s.client.get(`/${s.account}/subscriptions?customer=${sub.customer}`)).body.items[0].pending_changes).toHaveLength(1);
    expectProblem(await s.apply(sub, scr), 409, /is scheduled/);
    // No proration: the only invoice is the first period's.
    expect((await s.invoicesOf(sub)).map((invoice) => invoice.id)).toEqual([sub.latest_invoice]);
    const scheduledEvent = (await s.timeline(sub.id)).at(-1)!;
    expect(scheduledEvent).toMatchObject({ type: "customer.subscription.updated", previous_data: { pending_changes: [] }, data: pending });

    // Just before the period end nothing changed yet.
    await s.advance(end - MINUTE);
    expect(await s.getSub(sub)).toMatchObject({ items: sub.items, pending_changes: [{ change_request: scr.id }] });

    await s.advance(end + MINUTE);
    const renewed = await s.getSub(sub);
    expect(renewed).toMatchObject({ status: "active", current_period_start: sub.current_period_end, pending_changes: [] });
    expect(renewed.items.map((i: Json) => [i.price, i.quantity])).toEqual([[s.prices.basic, 1], [s.prices.addon, 1]]);
    expect(renewed.items[0].id).toBe(item);
    const done = await s.getRequest(sub, scr);
    expect(done).toMatchObject({ status: "applied", applied_steps: 2, applied_at: sub.current_period_end, last_error: null });
    expect(done.steps).toEqual([
      { type: "switch_price", item, price: s.prices.basic, quantity: null, state: "applied" },
      { type: "add_item", item: renewed.items[1].id, price: s.prices.addon, quantity: 1, state: "applied" },
    ]);

    // The renewal invoice bills the new items, for the new period, and was collected.
    const invoices = await s.invoicesOf(sub);
    expect(invoices).toHaveLength(2);
    const renewal = invoices[1]!;
    expect(renewal).toMatchObject({ id: renewed.latest_invoice, subtotal_atom: 1500, total_amount_atom: 1500, status: "paid" });
    expect(renewal.lines.map((line: Json) => [line.price, line.amount_atom])).toEqual([[s.prices.basic, 1000], [s.prices.addon, 500]]);
    // invoice.upcoming announced it, days before, with the pending change applied.
    const announced = (await s.timeline(renewal.id))[0]!;
    expect(announced).toMatchObject({ type: "invoice.upcoming", data: { subtotal_atom: 1500 } });

    // The subscription's story: each step (the first one empties pending_changes), then the period's advance on the new items.
    const events = (await s.timeline(sub.id)).filter((event) => event.type === "customer.subscription.updated").slice(1);
    expect(events.map((event) => [event.previous_data.items.length, event.data.items.length, event.data.current_period_start])).toEqual([
      [1, 1, sub.current_period_start],
      [1, 2, sub.current_period_start],
      [2, 2, sub.current_period_end],
    ]);
    expect(events[0]).toMatchObject({ previous_data: { pending_changes: [{ change_request: scr.id }] }, data: { pending_changes: [] } });
    expect((await s.timeline(scr.id)).map((event) => [event.type, event.data.status])).toEqual([
      ["subscription_change_request.scheduled", "scheduled"],
      ["subscription_change_request.applied", "applied"],
    ]);
    expectProblem(await s.cancelRequest(sub, scr), 409, /is applied/);
  });

  it("is cancellable until it runs: it leaves pending_changes and the renewal changes nothing", async () => {
    const s = await sandbox();
    const sub = await s.subscribe();
    const scr = await s.schedule(sub, [{ type: "set_quantity", item: sub.items[0].id, quantity: 3 }]);
    const cancelled = await s.cancelRequest(sub, scr);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body).toMatchObject({ status: "canceled", cancellation_reason: "requested" });
    expect((await s.getSub(sub)).pending_changes).toEqual([]);
    expectProblem(await s.cancelRequest(sub, scr), 409, /is canceled/);
    expectProblem(await s.apply(sub, scr), 409, /is canceled/);
    expect((await s.timeline(scr.id)).map((event) => event.type)).toEqual(["subscription_change_request.scheduled", "subscription_change_request.canceled"]);

    await s.advance(Date.parse(sub.current_period_end) + MINUTE);
    const renewed = await s.getSub(sub);
    expect(renewed).toMatchObject({ current_period_start: sub.current_period_end, items: sub.items, pending_changes: [] });
    expect((await s.invoicesOf(sub))[1]).toMatchObject({ id: renewed.latest_invoice, total_amount_atom: 3000 });
  });

  it("is checked after the changes already pending, previews the next invoice after all of them, and one that no longer applies at the renewal is dropped, recorded", async () => {
    const s = await sandbox();
    const sub = await s.subscribe();
    const item = sub.items[0].id;
    await s.schedule(sub, [{ type: "switch_price", item, price: s.prices.basic }]);
    // The item bills basic after the pending change: switching it to basic again is refused.
    expectProblem(await s.client.post(`/${s.account}/subscriptions/${sub.id}/change-requests`, { steps: [{ type: "switch_price", item, price: s.prices.basic }], effective: "period_end" }), 422, /already bills/);
    const second = await s.create(sub, [{ type: "add_item", price: s.prices.addon }], "period_end");
    expect(second.next_invoice_amount_atom).toBe(1500);
    expect((await s.apply(sub, second)).status).toBe(200);
    const third = await s.create(sub, [{ type: "set_quantity", item, quantity: 2 }], "period_end");
    expect(third.next_invoice_amount_atom).toBe(2500);
    expect((await s.apply(sub, third)).status).toBe(200);
    // A price of a pending change archived before the renewal: that change is dropped, the others apply.
    expect((await s.getSub(sub)).pending_changes.map((change: Json) => change.change_request)).toEqual([expect.any(String), second.id, third.id]);
    expect((await s.client.post(`/${s.account}/prices/${s.prices.addon}`, { active: false })).status).toBe(200);

    await s.advance(Date.parse(sub.current_period_end) + MINUTE);
    const renewed = await s.getSub(sub);
    expect(renewed.items.map((i: Json) => [i.price, i.quantity])).toEqual([[s.prices.basic, 2]]);
    expect(await s.getRequest(sub, second)).toMatchObject({ status: "canceled", cancellation_reason: "no_longer_applies", last_error: expect.stringMatching(/steps\.0\.price: .*archived/) });
    expect(await s.getRequest(sub, third)).toMatchObject({ status: "applied" });
    expect((await s.invoicesOf(sub))[1]).toMatchObject({ id: renewed.latest_invoice, total_amount_atom: 2000 });
  });

  it("422 for sandbox_fail_step on a period_end request and for an unknown effective", async () => {
    const s = await sandbox();
    const sub = await s.subscribe();
    const scr = await s.create(sub, [{ type: "set_quantity", item: sub.items[0].id, quantity: 2 }], "period_end");
    expectProblem(await s.client.post(`/${s.account}/subscriptions/${sub.id}/change-requests/${scr.id}/apply`, { sandbox_fail_step: 0 }), 422, /period end/);
    expectProblem(await s.client.post(`/${s.account}/subscriptions/${sub.id}/change-requests`, { steps: scr.steps.map(({ type, item, quantity }: Json) => ({ type, item, quantity })), effective: "later" }), 422, /effective/);
    expectProblem(await s.client.post(`/${s.account}/subscriptions/${sub.id}/cancel`, { effective: "now", at_period_end: true }), 422, /disagree/);
  });
});

describe("plan_change_policy", () => {
  it("immediate by default; upgrade_now_downgrade_at_period_end makes an upgrade (due now > 0) now and anything else period_end; an explicit effective wins; change-plan stays immediate", async () => {
    const s = await sandbox();
    expect((await s.client.get(`/${s.account}/account-settings`)).body.plan_change_policy).toBe("immediate");
    const sub = await s.subscribe(s.prices.basic);
    const item = sub.items[0].id;
    const up = [{ type: "switch_price", item, price: s.prices.pro }];
    const down = [{ type: "set_quantity", item, quantity: 2 }, { type: "switch_price", item, price: s.prices.addon }];
    expect(await s.create(sub, down)).toMatchObject({ effective: "now", amount_due_now_atom: 0 });

    expectProblem(await s.client.post(`/${s.account}/account-settings`, { plan_change_policy: "sometimes" }), 422, /plan_change_policy/);
    const set = await s.client.post(`/${s.account}/account-settings`, { plan_change_policy: "upgrade_now_downgrade_at_period_end" });
    expect(set.status, set.text).toBe(200);
    expect(set.body.plan_change_policy).toBe("upgrade_now_downgrade_at_period_end");

    const upgrade = await s.create(sub, up);
    expect(upgrade.effective).toBe("now");
    expect(upgrade.amount_due_now_atom).toBeGreaterThan(0);
    expect(await s.create(sub, down)).toMatchObject({ effective: "period_end", amount_due_now_atom: 0, next_invoice_amount_atom: 1000 });
    expect(await s.create(sub, down, "now")).toMatchObject({ effective: "now" });
    expect(await s.create(sub, up, "period_end")).toMatchObject({ effective: "period_end", amount_due_now_atom: 0, next_invoice_amount_atom: 3000 });
    // Nothing is due now while trialing: an upgrade then waits for the trial's end too.
    const trialing = await s.subscribe(s.prices.basic, { trial_period_days: 7 });
    expect(await s.create(trialing, [{ type: "switch_price", item: trialing.items[0].id, price: s.prices.pro }])).toMatchObject({ effective: "period_end" });

    // The deprecated change-plan applies at once whatever the policy.
    const planned = await s.client.post(`/${s.account}/subscriptions/${sub.id}/change-plan`, { price: s.prices.addon });
    expect(planned.status, planned.text).toBe(200);
    expect(planned.body).toMatchObject({ items: [{ price: s.prices.addon }], pending_changes: [] });
  });
});

describe("a cancellation and pending changes", () => {
  it("cancelling now drops the scheduled changes, recorded", async () => {
    const s = await sandbox();
    const sub = await s.subscribe();
    const scr = await s.schedule(sub, [{ type: "set_quantity", item: sub.items[0].id, quantity: 2 }]);
    const cancelled = await s.client.post(`/${s.account}/subscriptions/${sub.id}/cancel`, {});
    expect(cancelled.body).toMatchObject({ status: "cancelled", pending_changes: [] });
    expect(await s.getRequest(sub, scr)).toMatchObject({ status: "canceled", cancellation_reason: "subscription_cancelled" });
    expect((await s.timeline(sub.id)).at(-1)).toMatchObject({ type: "customer.subscription.cancelled", previous_data: { pending_changes: [{ change_request: scr.id }] } });
  });

  it("at the period end: set before the renewal, the subscription ends and the change is dropped; set after it, the change ran and the next renewal ends it", async () => {
    const s = await sandbox();
    const first = await s.subscribe();
    const second = await s.subscribe();
    const end = Date.parse(first.current_period_end);
    const a = await s.schedule(first, [{ type: "set_quantity", item: first.items[0].id, quantity: 2 }]);
    const b = await s.schedule(second, [{ type: "set_quantity", item: second.items[0].id, quantity: 2 }]);
    const flagged = await s.client.post(`/${s.account}/subscriptions/${first.id}/cancel`, { effective: "period_end" });
    expect(flagged.body).toMatchObject({ status: "active", cancel_at_period_end: true, pending_changes: [{ change_request: a.id }] });

    await s.advance(end + MINUTE);
    expect(await s.getSub(first)).toMatchObject({ status: "cancelled", cancelled_at: first.current_period_end, items: first.items, pending_changes: [] });
    expect(await s.getRequest(first, a)).toMatchObject({ status: "canceled", cancellation_reason: "subscription_cancelled" });
    expect(await s.invoicesOf(first)).toHaveLength(1);

    const renewed = await s.getSub(second);
    expect(renewed).toMatchObject({ status: "active", items: [{ quantity: 2 }] });
    expect(await s.getRequest(second, b)).toMatchObject({ status: "applied" });
    await s.client.post(`/${s.account}/subscriptions/${second.id}/cancel`, { effective: "period_end" });
    await s.advance(Date.parse(renewed.current_period_end) + MINUTE);
    expect(await s.getSub(second)).toMatchObject({ status: "cancelled", items: [{ quantity: 2 }] });
  });

  it("a renewal whose subscription another transaction holds at the stop is waited for, not reported as a transition that stays due (409)", async () => {
    const s = await sandbox();
    const sub = await s.subscribe();
    const end = Date.parse(sub.current_period_end);
    await s.advance(end - MINUTE);
    // A merchant's operation holding the subscription's row (as a cancellation does while it runs),
    // from before the advance reaches the period end until the advance is seen waiting for it.
    const { advance } = await sql.begin(async (tx) => {
      const pid = (await tx<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
      await tx`select id from subscriptions where id = ${sub.id} for update`;
      const advance = s.client.post(`/${s.account}/test-clock/advance`, { to: iso(end + MINUTE) });
      let answered = false;
      void advance.finally(() => (answered = true));
      // The clock skips the held row at its first pass; its next pass at the same instant waits for
      // the holder. Before that pass existed the advance answered 409 here, with the row still held.
      const waiting = async () => {
        const [row] = await tx<{ blocked: number }[]>`select count(*)::int as blocked from pg_stat_activity where ${pid}::int = any(pg_blocking_pids(pid))`;
        return answered || row!.blocked > 0;
      };
      await eventually(waiting, (done) => done, 60_000);
      // Wrapped: a promise returned bare would be awaited inside the transaction, which it waits for.
      return { advance };
    });
    const advanced = await advance;
    expect(advanced.status, advanced.text).toBe(200);
    const renewed = await s.getSub(sub);
    expect(renewed).toMatchObject({ status: "active", current_period_start: sub.current_period_end });
    expect((await s.invoicesOf(sub)).map((invoice) => invoice.total_amount_atom)).toEqual([3000, 3000]);
  });

  it("racing the renewal (a cancellation at period end, a cancel of the change, two applies) leaves one consistent outcome per subscription", async () => {
    const s = await sandbox();
    const subs = await Promise.all(Array.from({ length: 8 }, () => s.subscribe()));
    const end = Math.max(...subs.map((sub) => Date.parse(sub.current_period_end)));
    const scrs = await Promise.all(subs.map((sub) => s.create(sub, [{ type: "set_quantity", item: sub.items[0].id, quantity: 2 }], "period_end")));
    // Half the changes are scheduled before the race; the others are applied twice during it.
    await Promise.all(subs.slice(0, 4).map((sub, k) => s.apply(sub, scrs[k]!)));
    await s.advance(end - MINUTE);

    // The requests are spread over the advance's run (not a timing assertion: any order must be consistent),
    // so some land before the renewal of their subscription and some after.
    const later = (k: number) => new Promise((resolve) => setTimeout(resolve, (k % 4) * 60));
    // The clock's runner skips a subscription a racing request holds, and its next pass at that
    // instant waits for the request (lib/clock/service.ts): the advance answers 200 whatever the order.
    const advanced = s.client.post(`/${s.account}/test-clock/advance`, { to: iso(end + MINUTE) });
    const racing: Promise<unknown>[] = [advanced];
    subs.forEach((sub, k) => {
      const race = async () => {
        await later(k);
        const sent: Promise<unknown>[] = [];
        if (k % 2 === 0) sent.push(s.client.post(`/${s.account}/subscriptions/${sub.id}/cancel`, { effective: "period_end" }));
        else if (k < 4) sent.push(s.cancelRequest(sub, scrs[k]!));
        if (k >= 4) sent.push(s.apply(sub, scrs[k]!), s.apply(sub, scrs[k]!));
        await Promise.all(sent);
      };
      racing.push(race());
    });
    await Promise.all(racing);
    const first = await advanced;
    expect(first.status, first.text).toBe(200);

    for (const [k, sub] of subs.entries()) {
      const now = await s.getSub(sub);
      const scr = await s.getRequest(sub, scrs[k]!);
      const invoices = await s.invoicesOf(sub);
      const quantity = now.items[0].quantity;
      // Whatever the order, the change ran at most once, exactly when the request says it was applied.
      expect(quantity).toBe(scr.status === "applied" ? 2 : 1);
      expect(now.pending_changes).toEqual(scr.status === "scheduled" ? [{ change_request: scr.id, steps: scr.steps, effective_at: now.current_period_end }] : []);
      const scrEvents = (await s.timeline(scr.id)).map((event) => event.type);
      if (now.status === "cancelled") {
        // The cancellation was set before the renewal: the subscription ended, the change dropped (if it was scheduled), recorded.
        expect(now).toMatchObject({ cancelled_at: sub.current_period_end, items: sub.items });
        expect(scr.status === "open" || (scr.status === "canceled" && scr.cancellation_reason === "subscription_cancelled")).toBe(true);
        // (Sorted: during an advance a request's events carry the account's time, which may be past the stop the renewal ran at.)
        if (scr.status === "canceled") expect([...scrEvents].sort()).toEqual(["subscription_change_request.canceled", "subscription_change_request.scheduled"]);
        expect(invoices).toHaveLength(1);
      } else {
        // It renewed: the new period was invoiced at the quantity its change left when the renewal ran.
        expect(now).toMatchObject({ status: "active", current_period_start: sub.current_period_end });
        expect(invoices).toHaveLength(2);
        const renewalQuantity = scr.status === "applied" ? 2 : 1;
        expect(invoices[1]).toMatchObject({ id: now.latest_invoice, total_amount_atom: 3000 * renewalQuantity });
        // Applied by the renewal: at the period end, or at a later stop of the clock when a racing request held the subscription then.
        if (scr.status === "applied") expect(Date.parse(scr.applied_at)).toBeGreaterThanOrEqual(Date.parse(sub.current_period_end));
        if (k % 2 === 0) expect(now.cancel_at_period_end).toBe(true);
      }
      if (scr.status === "canceled" && scr.cancellation_reason === "requested") expect(quantity).toBe(1);
    }
  });

  it("an immediate cancellation racing the renewal that runs a scheduled change: either the change ran and then the subscription ended, or it ended first and the change was dropped, never both nor neither", async () => {
    /**
     * One race on a fresh account: 8 subscriptions, each with a scheduled change, cancelled while the
     * advance renews them — half as it starts, the others once it has renewed one of them.
     */
    const race = async (): Promise<string[]> => {
      const s = await sandbox();
      const subs = await Promise.all(Array.from({ length: 8 }, () => s.subscribe()));
      const end = Math.max(...subs.map((sub) => Date.parse(sub.current_period_end)));
      const scrs = await Promise.all(subs.map((sub) => s.create(sub, [{ type: "set_quantity", item: sub.items[0].id, quantity: 2 }], "period_end")));
      await Promise.all(subs.map(async (sub, k) => expect((await s.apply(sub, scrs[k]!)).status).toBe(200)));
      await s.advance(end - MINUTE);

      const advanced = s.client.post(`/${s.account}/test-clock/advance`, { to: iso(end + MINUTE) });
      let settled = false;
      void advanced.finally(() => (settled = true));
      const cancel = (sub: (typeof subs)[number]) => s.client.post(`/${s.account}/subscriptions/${sub.id}/cancel`, {});
      // The first half race the advance from its start; the others wait for a condition, not a
      // delay: until the advance has renewed one of them (or stopped), so that cancellations land on
      // both sides of the renewals however fast or loaded the machine is.
      const early = subs.slice(0, 4).map(cancel);
      const renewedOne = async () =>
        settled || (await Promise.all(subs.slice(4).map((sub) => s.getSub(sub)))).some((now, k) => now.current_period_start === subs[4 + k]!.current_period_end);
      await eventually(renewedOne, (done) => done, 60_000);
      const cancels = [...early, ...subs.slice(4).map(cancel)];
      const first = await advanced;
      expect(first.status, first.text).toBe(200);
      for (const cancel of await Promise.all(cancels)) expect(cancel.status, cancel.text).toBe(200);

      const outcomes: string[] = [];
      for (const [k, sub] of subs.entries()) {
        const now = await s.getSub(sub);
        const scr = await s.getRequest(sub, scrs[k]!);
        const invoices = await s.invoicesOf(sub);
        expect(now).toMatchObject({ status: "cancelled", pending_changes: [], cancel_at_period_end: false });
        if (scr.status === "applied") {
          // The renewal came first: it ran the change and invoiced the new period at its quantity; the cancellation ended that period.
          expect(now.items[0].quantity).toBe(2);
          expect(now.current_period_start).toBe(sub.current_period_end);
          expect(invoices.map((invoice) => invoice.total_amount_atom)).toEqual([3000, 6000]);
          expect(Date.parse(now.cancelled_at)).toBeGreaterThanOrEqual(Date.parse(sub.current_period_end));
          outcomes.push("renewed, then cancelled");
        } else {
          // The cancellation came first: the change was dropped, recorded, and nothing renewed.
          expect(scr).toMatchObject({ status: "canceled", cancellation_reason: "subscription_cancelled" });
          expect(now.items[0].quantity).toBe(1);
          expect(now.current_period_start).toBe(sub.current_period_start);
          expect(invoices).toHaveLength(1);
          // (At the latest during the advance's stop at the period end, before the renewal reached it: the clock stands there while it runs.)
          expect(Date.parse(now.cancelled_at)).toBeLessThan(end + MINUTE);
          const types = (await s.timeline(scr.id)).map((event) => event.type);
          expect([...types].sort()).toEqual(["subscription_change_request.canceled", "subscription_change_request.scheduled"]);
          outcomes.push("cancelled first");
        }
      }
      return outcomes;
    };
    // A real race lands cancellations on both sides of the renewals; a race is run again (on a fresh
    // account) until both outcomes were seen. Whatever the outcome, each race's assertions hold.
    const seen = new Set<string>();
    for (let attempt = 0; seen.size < 2 && attempt < 5; attempt++) for (const outcome of await race()) seen.add(outcome);
    expect([...seen].sort()).toEqual(["cancelled first", "renewed, then cancelled"]);
  }, 300_000);
});
