import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import type { ApiPath } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually, type Receiver } from "../helpers/receiver";
import { latestEventOf, receiverEndpoint } from "../helpers/webhooks";

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

describe("POST /{account_id}/events/{event_id}/resend", () => {
  it("delivers the event again to the chosen endpoint only, signed, with the same webhook-id", async () => {
    const merchant = await newMerchant();
    const first = await receiverEndpoint(merchant, ["customer.created"]);
    // Subscribed to something else: the merchant's explicit choice still reaches it.
    const chosen = await receiverEndpoint(merchant, ["invoice.paid"]);
    receivers.push(first.receiver, chosen.receiver);
    const { body: customer } = await merchant.client.post("/customers", { email: "resend@example.com" });
    const event = await latestEventOf(merchant, customer.id);
    await first.receiver.waitFor(1);

    const path = `/${merchant.accountId}/events/${event.id}/resend` as const;
    const resent = await merchant.client.post(path, { endpoint_id: chosen.endpoint.id });
    expect(resent.status, resent.text).toBe(201);
    expect(resent.body).toMatchObject({
      id: expect.stringMatching(/^ed_/),
      event_id: event.id,
      webhook_endpoint_id: chosen.endpoint.id,
      webhook_endpoint_url: chosen.endpoint.url,
    });

    const [request] = await chosen.receiver.waitFor(1);
    expect(request!.signatureValid).toBe(true);
    const headers = Object.fromEntries(Object.entries(request!.headers).map(([k, v]) => [k, String(v)]));
    expect(new Webhook(chosen.endpoint.secret).verify(request!.rawBody.toString("utf8"), headers)).toEqual(request!.body);
    expect(request!.headers["webhook-id"]).toBe(event.id);
    expect(request!.body).toMatchObject({ id: event.id, type: "customer.created", data: { object: { id: customer.id } } });

    const deliveries = await eventually(
      async () => (await merchant.client.get(`/${merchant.accountId}/events/${event.id}/deliveries`)).body as { id: string; status: string }[],
      (items) => items.some((d) => d.id === resent.body.id && d.status === "delivered"),
    );
    expect(deliveries).toHaveLength(2);
    // The first endpoint got nothing more.
    expect(first.receiver.requests).toHaveLength(1);
  });

  it("answers 404 for an unknown event or endpoint, 409 for a disabled endpoint, 400 or 422 for a bad body, and creates nothing", async () => {
    const merchant = await newMerchant();
    const { receiver, endpoint } = await receiverEndpoint(merchant);
    receivers.push(receiver);
    const { body: customer } = await merchant.client.post("/customers", { email: "nope@example.com" });
    const event = await latestEventOf(merchant, customer.id);
    await receiver.waitFor(1);
    const path = `/${merchant.accountId}/events/${event.id}/resend` as const;

    const cases: [ApiPath<"post">, unknown, number, RegExp][] = [
      [`/${merchant.accountId}/events/evt_prod_nope/resend`, { endpoint_id: endpoint.id }, 404, /event/],
      [path, { endpoint_id: "we_prod_nope" }, 404, /webhook endpoint/],
      [path, {}, 400, /endpoint_id/],
      [path, { endpoint_id: endpoint.id, extra: true }, 422, /extra|Unrecognized|unknown/i],
    ];
    for (const [url, body, status, detail] of cases) {
      expectProblem(await merchant.client.post(url, body), status, detail);
    }
    await merchant.client.post(`/${merchant.accountId}/webhook-endpoints/${endpoint.id}`, { enabled: false });
    expectProblem(await merchant.client.post(path, { endpoint_id: endpoint.id }), 409, /disabled/);
    expect((await merchant.client.get(`/${merchant.accountId}/events/${event.id}/deliveries`)).body).toHaveLength(1);
  });

  it("keeps accounts apart: 403 on another account's path, 404 for another account's endpoint", async () => {
    const merchant = await newMerchant();
    const other = await newMerchant();
    const mine = await receiverEndpoint(merchant);
    const theirs = await receiverEndpoint(other);
    receivers.push(mine.receiver, theirs.receiver);
    const { body: customer } = await other.client.post("/customers", { email: "theirs@example.com" });
    const theirEvent = await latestEventOf(other, customer.id);

    expectProblem(
      await merchant.client.post(`/${other.accountId}/events/${theirEvent.id}/resend`, { endpoint_id: mine.endpoint.id }),
      403,
    );
    expectProblem(
      await merchant.client.post(`/${merchant.accountId}/events/${theirEvent.id}/resend`, { endpoint_id: mine.endpoint.id }),
      404,
    );
    const { body: own } = await merchant.client.post("/customers", { email: "mine@example.com" });
    const ownEvent = await latestEventOf(merchant, own.id);
    expectProblem(
      await merchant.client.post(`/${merchant.accountId}/events/${ownEvent.id}/resend`, { endpoint_id: theirs.endpoint.id }),
      404,
    );
  });
});
