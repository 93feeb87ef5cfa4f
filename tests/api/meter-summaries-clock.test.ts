import { describe, expect, it } from "vitest";
import { api, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

/*
 * The dashboard's meter chart asks for the summaries without a range: the last 30 days (or 24
 * hours) by the account's clock, so a sandbox whose test clock was advanced sees its "today".
 */

const DAY = 86_400_000;

async function ok(response: Promise<{ status: number; body: Json; text: string }>): Promise<Json> {
  const settled = await response;
  expect([200, 201], settled.text).toContain(settled.status);
  return settled.body;
}

describe("meter summaries by the account's clock", () => {
  it("without start and end: the last 30 UTC days ending with the account's today, test clock included", async () => {
    const merchant = await newMerchant();
    const client = api(merchant.sandboxSecret.token);
    const account = merchant.sandboxAccountId;
    const meter = await ok(client.post(`/${account}/meters`, { event_name: "calls", display_name: "Calls", aggregation: "sum" }));
    const customer = await ok(client.post(`/${account}/customers`, { email: "chart@example.com" }));
    await ok(client.post(`/${account}/test-clock/advance`, { to: new Date(Date.now() + 45 * DAY).toISOString() }));
    const now = Date.parse((await ok(client.get(`/${account}/test-clock`))).now);
    const event = { event_name: "calls", customer: customer.id, timestamp: Math.floor(now / 1000), payload: { value: 1_750 } };
    await ok(client.post(`/${account}/usage-events`, { ...event, identifier: "today" }));

    const summaries = await ok(client.get(`/${account}/meters/${meter.id}/summaries?customer=${customer.id}`));
    const today = new Date(now);
    today.setUTCHours(0, 0, 0, 0);
    expect(summaries.items).toHaveLength(30);
    expect(summaries.items.at(-1)).toEqual({ start: today.toISOString(), end: new Date(today.getTime() + DAY).toISOString(), value: 1_750 });
    expect(summaries.items[0].start).toBe(new Date(today.getTime() - 29 * DAY).toISOString());

    const hours = await ok(client.get(`/${account}/meters/${meter.id}/summaries?customer=${customer.id}&group_by=hour`));
    expect(hours.items).toHaveLength(24);
    expect(hours.items.at(-1).value).toBe(1_750);
    expect(Date.parse(hours.items.at(-1).end)).toBeGreaterThan(now);

    // A range is both ends or neither.
    expectProblem(await client.get(`/${account}/meters/${meter.id}/summaries?customer=${customer.id}&start=${today.toISOString()}`), 422);
  });
});
