import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";
import { api, apiRoot } from "../helpers/api";
import { isolatedDatabase } from "../helpers/isolated-database";
import { eventually, Receiver } from "../helpers/receiver";
import { startApp, type RunningApp } from "../helpers/server";
import { CLOCK_TEST_ENV } from "../setup/api-server";

/**
 * `BACKGROUND_WORK=off`: an instance that serves the API only, beside a worker instance on the same
 * database (docs/operations.md, "Runtime modes"). Its own database (a template copy) and processes (the global app is not
 * involved).
 */
let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let apiOnly: RunningApp;
let worker: RunningApp | undefined;

beforeAll(async () => {
  database = await isolatedDatabase("background_work");
  apiOnly = await startApp({ DATABASE_URL: database.url, BACKGROUND_WORK: "off", ...CLOCK_TEST_ENV });
}, 120_000);

afterAll(async () => {
  await apiOnly?.stop();
  await worker?.stop();
  await database?.drop();
}, 60_000);

async function deliveryStatuses(endpointId: string): Promise<string[]> {
  const postgres = (await import("postgres")).default;
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ status: string }[]>`select status::text from event_deliveries where webhook_endpoint_id = ${endpointId}`;
    return rows.map((row) => row.status);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

describe("BACKGROUND_WORK=off", () => {
  it("is refused without DATABASE_URL (nobody else could deliver the embedded database's webhooks)", () => {
    expect(() => loadConfig({ BACKGROUND_WORK: "off" })).toThrow(/BACKGROUND_WORK=off needs DATABASE_URL/);
    expect(loadConfig({}).backgroundWork).toBe(true);
    expect(loadConfig({ BACKGROUND_WORK: "off", DATABASE_URL: "postgres://u@h/app" }).backgroundWork).toBe(false);
  });

  it("records deliveries in the change's transaction without sending them; a worker instance delivers them", async () => {
    expect(apiOnly.output()).toMatch(/BACKGROUND_WORK=off/);
    const receiver = await Receiver.start();
    try {
      const client = api(database.token, apiRoot(apiOnly.baseUrl));
      const endpoint = await client.post(`/${database.accountId}/webhook-endpoints`, { url: receiver.url, events: ["customer.created"] });
      expect(endpoint.status).toBe(201);
      receiver.useSecret(endpoint.body.secret);
      for (let i = 0; i < 10; i++) expect((await client.post("/customers", { email: `before-${i}@example.com` })).status).toBe(201);
      // Recorded with the change, and still pending: this instance runs no driver. (Two of the
      // driver's 1 s polls would have sent them by now.)
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(await deliveryStatuses(endpoint.body.id)).toEqual(Array(10).fill("pending"));
      expect(receiver.requests).toHaveLength(0);

      // A worker on the same database delivers them, and those created afterwards through the
      // API-only instance too.
      worker = await startApp({ DATABASE_URL: database.url, ...CLOCK_TEST_ENV });
      for (let i = 0; i < 10; i++) expect((await client.post("/customers", { email: `after-${i}@example.com` })).status).toBe(201);
      const requests = await receiver.waitFor((r) => new Set(r.map((q) => q.headers["x-webhook-delivery-id"])).size >= 20, 30_000);
      expect(requests.every((request) => request.signatureValid)).toBe(true);
      // The receiver has answered all 20; the worker records each answer just after it (a busy
      // machine showed one still `delivering` at a first read): read until none is in flight.
      const statuses = await eventually(
        () => deliveryStatuses(endpoint.body.id),
        (read) => read.every((status) => status !== "delivering" && status !== "pending"),
      );
      expect(statuses).toEqual(Array(20).fill("delivered"));
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
