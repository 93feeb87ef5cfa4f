import { describe, expect, it } from "vitest";
import { api } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

const DAY = 86_400_000;

/** A coupon's `valid` and its "redeem_by in the future" both read the account's clock, test clock included. */
describe("coupons on a sandbox's test clock", () => {
  it("a coupon past its redeem_by on the account's clock is not valid, and a redeem_by before it is refused", async () => {
    const merchant = await newMerchant();
    const client = api(merchant.sandboxSecret.token);
    const account = merchant.sandboxAccountId;
    const redeemBy = new Date(Date.now() + 2 * DAY).toISOString();
    const created = await client.post(`/${account}/coupons`, { percent_off: 10, duration: "once", redeem_by: redeemBy });
    expect(created.status, created.text).toBe(201);
    expect(created.body.valid).toBe(true);

    const advanced = await client.post(`/${account}/test-clock/advance`, { to: new Date(Date.now() + 3 * DAY).toISOString() });
    expect(advanced.status, advanced.text).toBe(200);

    const read = await client.get(`/${account}/coupons/${created.body.id}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.valid).toBe(false);
    const listed = await client.get(`/${account}/coupons`);
    expect(listed.body.items.find((c: { id: string }) => c.id === created.body.id).valid).toBe(false);

    // Tomorrow in real time is the past on this account's clock.
    const refused = await client.post(`/${account}/coupons`, { percent_off: 10, duration: "once", redeem_by: new Date(Date.now() + DAY).toISOString() });
    expectProblem(refused, 422);
    expect(refused.body.errors.map((e: { field: string }) => e.field)).toEqual(["redeem_by"]);
  });
});
