import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { csvHeader, EXPORT_BATCH, type ExportColumns } from "@/lib/api/export";
import { issueToken } from "@/lib/auth/tokens";
import { operationPath } from "@/lib/operation-paths";
import type { Permissions } from "@/lib/permissions";
import { exportMeterUsageEventsOperation } from "@/lib/usage/operations";
import { apiBaseUrl, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

// The usage events export (docs/api.md, "Exports"): a meter's events of one customer, the list's
// filters (`customer`, `timestamp[gte]` / `timestamp[lt]`), in the list's order across keyset
// batches (ties of `timestamp` and `received` straddle a batch's end), read permission on usage.

let merchant: Merchant;
let meter: string;
let customer: string;
/** Unix seconds of the oldest event. */
let t0: number;
const EVENTS = EXPORT_BATCH * 2 + 150;
const table = exportMeterUsageEventsOperation.exportColumns as ExportColumns<never>;

const origin = () => new URL(apiBaseUrl()).origin;

async function get(path: string, token = merchant.secret.token): Promise<Response> {
  return fetch(`${origin()}${path}`, { headers: { Authorization: `Bearer ${token}` } });
}

function exportPath(query: string): string {
  return `${operationPath("exportMeterUsageEvents", { account_id: merchant.accountId, meter_id: meter })}?customer=${customer}${query}`;
}

function listPath(query: string): string {
  return `${operationPath("listMeterUsageEvents", { account_id: merchant.accountId, meter_id: meter })}?customer=${customer}${query}`;
}

async function ndjson(query: string): Promise<Json[]> {
  const response = await get(exportPath(`${query}&format=ndjson`));
  const text = await response.text();
  expect(response.status, text).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/x-ndjson");
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Json);
}

/** The list's order: `timestamp`, then `received`, then `identifier`, each descending. */
function listOrder(a: Json, b: Json): number {
  if (a.timestamp !== b.timestamp) return b.timestamp - a.timestamp;
  if (a.received !== b.received) return a.received < b.received ? 1 : -1;
  return a.identifier < b.identifier ? 1 : a.identifier > b.identifier ? -1 : 0;
}

beforeAll(async () => {
  merchant = await newMerchant();
  const client = merchant.client;
  customer = (await client.post("/customers", { email: "usage-export@example.com" })).body.id;
  const other = (await client.post("/customers", { email: "usage-other@example.com" })).body.id;
  const created = await client.post("/meters", { event_name: "calls", display_name: "Calls", aggregation: "sum" });
  expect(created.status, created.text).toBe(201);
  meter = created.body.id;
  await client.post("/meters", { event_name: "bytes", display_name: "Bytes", aggregation: "sum" });
  // Within ingestion's window: the open period (from now) less the grace (an hour).
  t0 = Math.floor(Date.now() / 1000) - 600;
  // 40 events per second of usage, in batches whose events share their `received`: ties of both
  // straddle every export batch's end. A formula in a payload, another customer's and meter's events.
  const events = Array.from({ length: EVENTS }, (_, index) => ({
    event_name: "calls",
    customer,
    identifier: `u-${String(index).padStart(5, "0")}`,
    timestamp: t0 + Math.floor(index / 40),
    payload: index === 7 ? { value: 2, note: "=1+1" } : { value: 1 },
  }));
  events.push({ event_name: "calls", customer: other, identifier: "other-customer", timestamp: t0 + 1, payload: { value: 1 } });
  events.push({ event_name: "bytes", customer, identifier: "other-meter", timestamp: t0 + 1, payload: { value: 1 } });
  for (let at = 0; at < events.length; at += 1000) {
    const batch = await client.post("/usage-events/batch", { events: events.slice(at, at + 1000) });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.items.filter((item: Json) => item.status !== "accepted")).toEqual([]);
  }
  expect((await client.post("/usage-events/u-00003/cancel")).status).toBe(200);
}, 120_000);

describe("the usage events export", () => {
  it("NDJSON: every event of the meter and customer, once, in the list's order, as the list shows them", async () => {
    const items = await ndjson("");
    expect(items.map((item) => item.identifier).sort()).toEqual(Array.from({ length: EVENTS }, (_, index) => `u-${String(index).padStart(5, "0")}`));
    expect(items).toEqual([...items].sort(listOrder));
    // The newest are the list's page, object for object.
    const list = await get(listPath("&limit=100"));
    expect(list.status).toBe(200);
    expect(items.slice(0, 100)).toEqual(((await list.json()) as Json).items);
    expect(items.find((item) => item.identifier === "u-00003")!.cancelled).toEqual(expect.any(String));
  });

  it("a time range is the list's filter", async () => {
    const query = `&timestamp[gte]=${new Date((t0 + 10) * 1000).toISOString()}&timestamp[lt]=${new Date((t0 + 12) * 1000).toISOString()}`;
    const items = await ndjson(query);
    expect(items.map((item) => item.timestamp)).toEqual([...Array(40).fill(t0 + 11), ...Array(40).fill(t0 + 10)]);
    const list = await get(listPath(`${query}&limit=100`));
    expect(list.status).toBe(200);
    expect(items).toEqual(((await list.json()) as Json).items);
  });

  it("CSV: the documented columns, objects as JSON, formulas escaped", async () => {
    const response = await get(exportPath("&format=csv"));
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="usage-events.csv"');
    const records = parse(text) as string[][];
    expect(records[0]).toEqual(csvHeader(table));
    expect(records[0]).toEqual(["identifier", "meter", "customer", "timestamp", "value", "payload", "received", "cancelled"]);
    const items = await ndjson("");
    const expected = items.map((item) =>
      table.columns.map(({ name }) => {
        const value = item[name];
        if (value === null) return "";
        return typeof value === "object" ? JSON.stringify(value) : String(value);
      }),
    );
    expect(records.slice(1)).toEqual(expected);
    // A payload is a JSON cell (it starts with `{`): never a formula, whatever it holds.
    expect(records.find((record) => record[0] === "u-00007")![5]).toBe('{"value":2,"note":"=1+1"}');
  });

  it("refuses a bad filter, an unknown meter or customer, and a key without read on usage", async () => {
    expectProblem(await apiProblem(exportPath("&format=ndjson&timestamp[gte]=yesterday")), 400);
    expectProblem(await apiProblem(exportPath("&format=ndjson&limit=5")), 400);
    expectProblem(await apiProblem(exportPath("&format=ndjson").replace(`customer=${customer}`, "customer=cus_prod_00000000000000000000000000000")), 404);
    const mint = async (permissions: Permissions) =>
      (await issueToken(await getDb(), { accountId: merchant.accountId, kind: "restricted", name: "usage export", permissions })).token;
    const refused = await apiProblem(exportPath("&format=csv"), await mint({ customers: "read", events: "read" }));
    expectProblem(refused, 403, /lacks the permission/);
    expect(refused.body.required_permission).toBe("usage:read");
    const reader = await get(exportPath("&format=ndjson"), await mint({ usage: "read" }));
    expect(reader.status).toBe(200);
    expect((await reader.text()).split("\n").filter(Boolean)).toHaveLength(EVENTS);
  });
});

/** A refused export as expectProblem reads it: status, headers, text and parsed body. */
async function apiProblem(path: string, token?: string) {
  const response = await get(path, token);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) as Json };
}
