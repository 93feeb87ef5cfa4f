import { afterEach, describe, expect, it } from "vitest";
import type { Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import type { Receiver } from "../helpers/receiver";
import { deliveriesOf, latestEventOf, receiverEndpoint } from "../helpers/webhooks";

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

/** The headers an attempt sent, as a receiver saw them: names lowercased, the transport's own left out. */
const asReceived = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

describe("GET /events/{id}/full: what the deliveries sent (issue 27, webhook debugging)", () => {
  it("gives the exact body the receiver got and the latest attempt's headers, signatures masked, no secret", async () => {
    const merchant = await newMerchant();
    const { receiver, endpoint } = await receiverEndpoint(merchant, ["customer.updated"]);
    receivers.push(receiver);
    // The first attempt fails, the retry delivers: the headers shown are the retry's.
    receiver.respond((_request, index) => (index === 0 ? { status: 500 } : { status: 200 }));
    const { body: customer } = await merchant.client.post("/customers", { email: "shown@example.com", name: "Before" });
    await merchant.client.post(`/customers/${customer.id}`, { name: "After" });
    const [first, second] = await receiver.waitFor(2);
    const event = await latestEventOf(merchant, customer.id);
    await deliveriesOf(merchant, event.id, (d) => d[0]?.status === "delivered");

    const full = await merchant.client.get(`/${merchant.accountId}/events/${event.id}/full`);
    expect(full.status).toBe(200);
    expect(full.body.webhook.body).toBe(second!.rawBody.toString("utf8"));
    expect(first!.rawBody.equals(second!.rawBody)).toBe(true);
    expect(JSON.parse(full.body.webhook.body)).toMatchObject({ data: { object: { name: "After" }, previous_attributes: { name: "Before" } } });

    const [request] = full.body.webhook.requests as Json[];
    expect(full.body.webhook.requests).toHaveLength(1);
    expect(request).toMatchObject({ delivery_id: full.body.deliveries[0].id, attempt: 2 });
    const shown = asReceived(request.headers);
    const got = second!.headers;
    for (const name of ["content-type", "user-agent", "content-length", "webhook-id", "webhook-timestamp", "x-webhook-event-id", "x-webhook-event-type", "x-webhook-delivery-id", "x-webhook-attempt"]) {
      expect(shown[name], name).toBe(got[name]);
    }
    expect(shown["x-webhook-attempt"]).toBe("2");
    expect(shown["webhook-signature"]).toBe("v1,••••••••");
    expect(shown["x-webhook-signature"]).toBe("sha256=••••••••");
    // Every header the receiver got from the service is shown (host and connection are the transport's).
    const fromService = Object.keys(got).filter((name) => !["host", "connection"].includes(name)).sort();
    expect(Object.keys(shown).sort()).toEqual(fromService);

    expect(full.text).not.toContain(endpoint.secret);
    expect(full.text).not.toContain(String(endpoint.secret).slice("whsec_".length));
    expect(full.text).not.toContain(String(got["webhook-signature"]).slice(3));
  });

  it("shows one masked signature per valid secret during a rotation's overlap", async () => {
    const merchant = await newMerchant();
    const { receiver, endpoint } = await receiverEndpoint(merchant, ["customer.created"]);
    receivers.push(receiver);
    const rotated = await merchant.client.post(`/${merchant.accountId}/webhook-endpoints/${endpoint.id}/rotate-secret`, {});
    expect(rotated.status).toBe(200);
    receiver.useSecret(rotated.body.secret);
    const { body: customer } = await merchant.client.post("/customers", { email: "rotated@example.com" });
    const [got] = await receiver.waitFor(1);
    const event = await latestEventOf(merchant, customer.id);
    await deliveriesOf(merchant, event.id, (d) => d[0]?.status === "delivered");

    const full = await merchant.client.get(`/${merchant.accountId}/events/${event.id}/full`);
    const shown = asReceived(full.body.webhook.requests[0].headers);
    expect(String(got!.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(shown["webhook-signature"]).toBe("v1,•••••••• v1,••••••••");
    expect(shown["x-webhook-signature-previous"]).toBe("sha256=••••••••");
    expect(full.text).not.toContain(rotated.body.secret);
    expect(full.text).not.toContain(endpoint.secret);
  });
});
