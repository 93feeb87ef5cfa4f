import { describe, expect, it } from "vitest";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";

/** Runs `work` over `items` with `concurrency` requests in flight. */
async function pool<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}

async function drafts(client: Client, account: string, customer: string, n: number): Promise<string[]> {
  return pool(Array.from({ length: n }, (_, i) => i), 4, async (i) => {
    const response = await client.post(`/${account}/invoices`, { customer, currency: "eur", lines: [{ unit_amount_atom: 100 + i, description: `Line ${i}` }] });
    expect(response.status, response.text).toBe(201);
    return response.body.id as string;
  });
}

describe("invoice numbers", () => {
  it("gives the prefix and a 4-digit sequence at finalization, in the answer and invoice.finalized; voiding keeps it; the sandbox counts apart", async () => {
    const m = await newMerchant();
    await m.client.post("/account-settings", { business_name: "Acme Ltd" });
    const customer = (await m.client.post("/customers", { email: "n@example.com" })).body.id;
    const [first, second] = await drafts(m.client, m.accountId, customer, 2);
    const draft = (await m.client.get(`/invoices/${first}`)).body;
    expect(draft.number).toBeNull();
    const finalized = await m.client.post(`/invoices/${first}/finalize`);
    expect(finalized.body.number).toBe("ACME-0001");
    const [event] = (await m.client.get(`/${m.accountId}/events?aggregate_id=${first}&event_type=invoice.finalized`)).body.items;
    expect(event.data.number).toBe("ACME-0001");
    expect(event.previous_data.number).toBeNull();
    const voided = await m.client.post(`/invoices/${first}/void`);
    expect(voided.body).toMatchObject({ status: "void", number: "ACME-0001" });

    // A new prefix applies to later numbers; the sequence goes on.
    await m.client.post("/account-settings", { invoice_prefix: "AC-26" });
    expect((await m.client.post(`/invoices/${second}/finalize`)).body.number).toBe("AC-26-0002");
    expect((await m.client.get(`/invoices/${first}`)).body.number).toBe("ACME-0001");

    const sandbox = api(m.sandboxSecret.token);
    const sandboxCustomer = (await sandbox.post("/customers", { email: "s@example.com" })).body.id;
    const [sandboxInvoice] = await drafts(sandbox, m.sandboxAccountId, sandboxCustomer, 1);
    expect((await sandbox.post(`/invoices/${sandboxInvoice}/finalize`)).body.number).toMatch(/-0001$/);

    // A refused finalization takes no number.
    expect((await m.client.post(`/invoices/${first}/finalize`)).status).toBe(409);
    const [third] = await drafts(m.client, m.accountId, customer, 1);
    expect((await m.client.post(`/invoices/${third}/finalize`)).body.number).toBe("AC-26-0003");
  });

  it("16 connections finalizing 500 invoices of one account get 1..500, no gap, no repeat", async () => {
    const m = await newMerchant();
    await m.client.post("/account-settings", { invoice_prefix: "RACE" });
    const customer = (await m.client.post("/customers", { email: "race@example.com" })).body.id;
    const ids = await drafts(m.client, m.accountId, customer, 500);
    const numbers = await pool(ids, 16, async (id) => {
      const response = await m.client.post(`/invoices/${id}/finalize`);
      expect(response.status, response.text).toBe(200);
      return response.body.number as string;
    });
    const sequences = numbers.map((number) => Number(/^RACE-(\d{4,})$/.exec(number)![1])).sort((a, b) => a - b);
    expect(sequences).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    // What the API answered is what is stored and what the events carry.
    const events: Json[] = [];
    for (let offset = 0; offset < 500; offset += 100) {
      events.push(...(await m.client.get(`/${m.accountId}/events?event_type=invoice.finalized&limit=100&offset=${offset}`)).body.items);
    }
    expect(events.map((e) => e.data.number).sort()).toEqual([...numbers].sort());
  }, 240_000);
});
