import { afterEach, describe, expect, it } from "vitest";
import { api, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { eventually, refusedUrl, Receiver } from "../helpers/receiver";

const DAY = 86_400_000;
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

/** A sandbox account (it has a test clock) with an endpoint at `url`. */
async function sandboxEndpoint(url: string) {
  const merchant = await newMerchant();
  const account = merchant.sandboxAccountId;
  const client = api(merchant.sandboxSecret.token);
  const endpoint = (await client.post(`/${account}/webhook-endpoints`, { url, events: ["customer.created"] })).body;
  const path = `/${account}/webhook-endpoints/${endpoint.id}` as const;
  const read = async (): Promise<Json> => (await client.get(path)).body;
  const advance = async (ms: number) => {
    const clock = (await client.get(`/${account}/test-clock`)).body;
    const moved = await client.post(`/${account}/test-clock/advance`, { to: new Date(Date.parse(clock.now) + ms).toISOString() });
    expect(moved.status, moved.text).toBe(200);
  };
  let n = 0;
  const emit = () => client.post("/customers", { email: `c${++n}@example.com` });
  return { client, account, endpoint, path, read, advance, emit };
}

/** Waits until no attempt is scheduled: every delivery of the endpoint finished. */
async function settled(s: Awaited<ReturnType<typeof sandboxEndpoint>>) {
  await eventually(
    async () => (await s.client.get(`${s.path}/deliveries`)).body.items as Json[],
    (items) => items.every((d: Json) => d.status === "delivered" || (d.status === "failed" && d.next_retry_at === null)),
  );
}

describe("auto-disable after sustained failure", () => {
  it("disables an endpoint whose attempts all failed for 5 days (account clock), with reason and time", async () => {
    const s = await sandboxEndpoint(await refusedUrl());
    await s.emit();
    const failing = await eventually(s.read, (e) => e.failing_since !== null);
    expect(failing.enabled).toBe(true);
    await settled(s);

    await s.advance(4 * DAY);
    await s.emit();
    await settled(s);
    expect(await s.read()).toMatchObject({ enabled: true, disabled_at: null, failing_since: failing.failing_since });

    await s.advance(DAY + 60_000);
    await s.emit();
    const disabled = await eventually(s.read, (e) => e.enabled === false);
    expect(disabled.disabled_reason).toMatch(/failed for 5d/);
    expect(disabled.disabled_reason).toContain(failing.failing_since.slice(0, 19));
    expect(Date.parse(disabled.disabled_at) - Date.parse(failing.failing_since)).toBeGreaterThanOrEqual(5 * DAY);

    // Disabled: new events make no delivery to it.
    const before = (await s.client.get(`${s.path}/deliveries`)).body.total;
    await s.emit();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await s.client.get(`${s.path}/deliveries`)).body.total).toBe(before);

    // Enabling clears the notice and the streak; the missed window can be replayed.
    const enabled = await s.client.post(s.path, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, disabled_at: null, disabled_reason: null, failing_since: null });
    const replay = await s.client.post(`${s.path}/replay`, { since: failing.failing_since });
    // c2, c3 and c4 (made while disabled); c1 is older than the first failed attempt.
    expect(replay.body.replayed).toBe(3);
  });

  it("starts the streak afresh after any successful delivery", async () => {
    const receiver = await Receiver.start();
    receivers.push(receiver);
    receiver.respond({ status: 500 });
    const s = await sandboxEndpoint(receiver.url);
    await s.emit();
    await eventually(s.read, (e) => e.failing_since !== null);
    await settled(s);
    await s.advance(4 * DAY);

    receiver.respond({ status: 200 });
    await s.emit();
    await eventually(s.read, (e) => e.failing_since === null);

    receiver.respond({ status: 500 });
    await s.advance(DAY + 60_000);
    await s.emit();
    await eventually(s.read, (e) => e.failing_since !== null);
    await settled(s);
    expect((await s.read()).enabled).toBe(true);
  });
});
