import { describe, expect, it } from "vitest";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("a customer's latest usage events of a meter", () => {
  it("lists them newest first, up to limit, cancelled ones marked, other customers' and meters' left out", async () => {
    const m = await newMerchant();
    const cus = (await m.client.post("/customers", { email: "latest@example.com" })).body.id;
    const other = (await m.client.post("/customers", { email: "other@example.com" })).body.id;
    const meter = (await m.client.post("/meters", { event_name: "calls", display_name: "Calls", aggregation: "sum" })).body;
    await m.client.post("/meters", { event_name: "bytes", display_name: "Bytes", aggregation: "sum" });
    const t0 = nowSeconds() - 120;
    const batch = await m.client.post("/usage-events/batch", {
      events: [
        { event_name: "calls", customer: cus, identifier: "a", timestamp: t0, payload: { value: 1, region: "eu" } },
        { event_name: "calls", customer: cus, identifier: "c", timestamp: t0 + 20, payload: { value: 3 } },
        { event_name: "calls", customer: cus, identifier: "b", timestamp: t0 + 10, payload: { value: 2 } },
        { event_name: "calls", customer: other, identifier: "o", timestamp: t0 + 30, payload: { value: 9 } },
        { event_name: "bytes", customer: cus, identifier: "x", timestamp: t0 + 40, payload: { value: 9 } },
      ],
    });
    expect(batch.body.items.map((r: { status: string }) => r.status)).toEqual(["accepted", "accepted", "accepted", "accepted", "accepted"]);
    await m.client.post("/usage-events/b/cancel");

    const all = await m.client.get(`/meters/${meter.id}/usage-events?customer=${cus}`);
    expect(all.status, all.text).toBe(200);
    expect(all.body.items.map((e: { identifier: string }) => e.identifier)).toEqual(["c", "b", "a"]);
    expect(all.body.items[2]).toEqual({
      object: "usage_event",
      identifier: "a",
      meter: meter.id,
      customer: cus,
      timestamp: t0,
      value: 1,
      payload: { region: "eu", value: 1 },
      received: expect.any(String),
      cancelled: null,
    });
    expect(all.body.items[1].cancelled).toEqual(expect.any(String));
    const two = await m.client.get(`/meters/${meter.id}/usage-events?customer=${cus}&limit=2`);
    expect(two.body.items.map((e: { identifier: string }) => e.identifier)).toEqual(["c", "b"]);
  });

  it.each([
    ["an unknown meter", "mtr_prod_00000000000000000000000000000", null, 404],
    ["an unknown customer", null, "cus_prod_00000000000000000000000000000", 404],
    ["no customer", null, "", 400],
    ["a limit over 100", null, "limit", 400],
  ])("refuses %s", async (_, meterId, customer, status) => {
    const m = await newMerchant();
    const cus = (await m.client.post("/customers", { email: "refused@example.com" })).body.id;
    const meter = (await m.client.post("/meters", { event_name: "calls", display_name: "Calls", aggregation: "sum" })).body;
    const id = meterId ?? meter.id;
    const query = customer === "" ? "" : customer === "limit" ? `customer=${cus}&limit=101` : `customer=${customer ?? cus}`;
    expectProblem(await m.client.get(`/meters/${id}/usage-events?${query}`), status);
  });
});
