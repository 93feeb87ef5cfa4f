import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, type Client, apiRoot } from "../helpers/api";
import { isolatedDatabase } from "../helpers/isolated-database";
import { expectProblem } from "../helpers/problem";
import { eventually, Receiver } from "../helpers/receiver";
import { startApp, startDevApp, type RunningApp } from "../helpers/server";

/**
 * Issue 27: in `npm run dev`, `https://127.0.0.1:…` was refused at creation while
 * `https://localhost:…` was accepted and then never delivered. Both spellings of loopback now
 * behave alike: accepted and delivered to in development, refused at creation in production
 * unless private networks are allowed. Each app runs on its own database, with the private
 * network setting unset (the shared test app sets it).
 */

/**
 * A GET retried once when `next dev` closed the kept-alive connection under it (undici's
 * UND_ERR_SOCKET "other side closed"): seen on the first read after the deliveries, with the dev
 * server still serving. A read changes nothing, so sending it again is what any HTTP client does;
 * a second failure still fails the test.
 */
async function readAgainIfDropped<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if ((error as { cause?: { code?: string } }).cause?.code !== "UND_ERR_SOCKET") throw error;
    return read();
  }
}

/** The two spellings of one loopback receiver's URL. */
const spellings = (receiver: Receiver) => {
  const url = new URL(receiver.url);
  return { ip: url.href, name: url.href.replace("127.0.0.1", "localhost") };
};

describe("loopback endpoints in development (`next dev`)", () => {
  let app: RunningApp;
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let client: Client;
  let receiver: Receiver;

  beforeAll(async () => {
    database = await isolatedDatabase("loopback_dev");
    receiver = await Receiver.start();
    // `next dev` compiles each route on its first request: minutes on a loaded machine.
    app = await startDevApp({ DATABASE_URL: database.url, WEBHOOK_ALLOW_PRIVATE_NETWORKS: undefined });
    client = api(database.token, apiRoot(app.baseUrl));
  }, 600_000);
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
    await database?.drop();
  }, 60_000);

  it("accepts https://127.0.0.1:PORT and https://localhost:PORT and delivers to both", async () => {
    const { ip, name } = spellings(receiver);
    const endpoints = `/${database.accountId}/webhook-endpoints` as const;
    const byIp = await client.post(endpoints, { url: ip, events: ["customer.created"] });
    expect(byIp.status).toBe(201);
    const byName = await client.post(endpoints, { url: name, events: ["customer.created"] });
    expect(byName.status).toBe(201);

    const customer = (await client.post("/customers", { email: "loopback@example.com" })).body;
    const requests = await receiver.waitFor(2, 120_000);
    expect(requests.map((request) => request.body.data.object.id)).toEqual([customer.id, customer.id]);

    const event = (await readAgainIfDropped(() => client.get(`/${database.accountId}/events?aggregate_id=${customer.id}`))).body.items[0];
    // The receiver has answered both; the app records each answer just after it (a busy machine
    // showed one still `delivering` at the first read): read until neither is in flight.
    const deliveries = await eventually(
      async () => (await readAgainIfDropped(() => client.get(`/${database.accountId}/events/${event.id}/deliveries`))).body as { webhook_endpoint_url: string; status: string }[],
      (read) => read.every((delivery) => delivery.status !== "delivering" && delivery.status !== "pending"),
    );
    expect(deliveries.map((delivery) => [delivery.webhook_endpoint_url, delivery.status]).sort()).toEqual(
      [[ip, "delivered"], [name, "delivered"]].sort(),
    );
  }, 300_000);
});

describe("loopback endpoints in production (`next start`)", () => {
  let app: RunningApp;
  let database: Awaited<ReturnType<typeof isolatedDatabase>>;
  let receiver: Receiver;

  beforeAll(async () => {
    database = await isolatedDatabase("loopback_prod");
    receiver = await Receiver.start();
    app = await startApp({ DATABASE_URL: database.url, WEBHOOK_ALLOW_PRIVATE_NETWORKS: undefined });
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
    await database?.drop();
  }, 60_000);

  it("refuses both spellings at creation, and nothing is created", async () => {
    const client = api(database.token, apiRoot(app.baseUrl));
    const endpoints = `/${database.accountId}/webhook-endpoints` as const;
    const { ip, name } = spellings(receiver);
    for (const url of [ip, name, name.replace("localhost", "LocalHost."), "https://[::1]:8443/hook", "https://dev.localhost/hook"]) {
      expectProblem(await client.post(endpoints, { url, events: ["customer.created"] }), 422, /non-public address/);
    }
    expect((await client.get(endpoints)).body.items).toEqual([]);
  });
});
