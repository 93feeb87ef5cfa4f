import type { Merchant } from "./merchant";
import { Receiver, eventually } from "./receiver";
import type { Json } from "./api";

/** A receiver plus an endpoint pointing at it, subscribed to `events`. */
export async function receiverEndpoint(merchant: Merchant, events: string[] = ["*"], url?: string) {
  const receiver = await Receiver.start();
  const created = await merchant.client.post(`/${merchant.accountId}/webhook-endpoints`, {
    url: url ?? receiver.url,
    events,
  });
  if (created.status !== 201) throw new Error(`endpoint creation failed: ${created.text}`);
  receiver.useSecret(created.body.secret);
  return { receiver, endpoint: created.body as Json };
}

/** The deliveries of the latest event of an aggregate, once `accept` holds. */
export async function deliveriesOf(merchant: Merchant, eventId: string, accept: (deliveries: Json[]) => boolean) {
  return eventually(
    async () => (await merchant.client.get(`/${merchant.accountId}/events/${eventId}/deliveries`)).body as Json[],
    accept,
  );
}

export async function latestEventOf(merchant: Merchant, aggregateId: string): Promise<Json> {
  const page = await merchant.client.get(`/${merchant.accountId}/events?aggregate_id=${aggregateId}&limit=1`);
  return page.body.items[0];
}
