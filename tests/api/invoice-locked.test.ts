import { beforeAll, describe, expect, it } from "vitest";
import { holdInvoiceLock } from "../helpers/invoice-lock";
import type { Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

let merchant: Merchant;
let customerId: string;
beforeAll(async () => {
  merchant = await newMerchant();
  customerId = (await merchant.client.post("/customers", { email: "locked@example.com" })).body.id;
});


const typesOf = async (id: string): Promise<string[]> =>
  (await merchant.client.get(`/${merchant.accountId}/events?aggregate_id=${id}`)).body.items.map((e: Json) => e.type);

async function draft(): Promise<Json> {
  const response = await merchant.client.post(`/${merchant.accountId}/invoices`, {
    customer: customerId,
    currency: "usd",
    lines: [{ unit_amount_atom: 1500, description: "Plan" }],
  });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function open(): Promise<Json> {
  const invoice = await draft();
  const response = await merchant.client.post(`/invoices/${invoice.id}/finalize`);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

function expectInvoiceLocked(response: Awaited<ReturnType<Merchant["client"]["post"]>>, invoiceId: string): void {
  expectProblem(response, 409, /is being modified by another operation/);
  expect(response.body).toMatchObject({
    title: "Invoice Locked",
    error_code: "invoice_locked",
    retryable: true,
    invoice_id: invoiceId,
    // Invoices without a subscription name none (subscriptions come later).
    subscription_id: null,
  });
}

describe("invoice_locked", () => {
  it.each([
    ["finalize", "draft", undefined, "open"],
    ["pay", "open", { paid_out_of_band: true }, "paid"],
    ["void", "open", undefined, "void"],
    ["mark-uncollectible", "open", undefined, "uncollectible"],
    ["lines", "draft", { unit_amount_atom: 1, description: "Extra" }, "draft"],
  ])("%s on a %s invoice locked by another operation: 409, nothing changed; the identical request then succeeds", async (action, state, body, after) => {
    const invoice = state === "draft" ? await draft() : await open();
    const eventsBefore = await typesOf(invoice.id);
    const release = await holdInvoiceLock(invoice.id);
    try {
      const path = `/${merchant.accountId}/invoices/${invoice.id}/${action as "finalize" | "pay" | "void" | "mark-uncollectible" | "lines"}` as const;
      const refused = await merchant.client.post(path, body);
      expectInvoiceLocked(refused, invoice.id);
      // Reads do not wait for the lock.
      expect((await merchant.client.get(`/invoices/${invoice.id}`)).body).toEqual(invoice);
      expect(await typesOf(invoice.id)).toEqual(eventsBefore);
    } finally {
      await release();
    }
    const retried = await merchant.client.post(`/${merchant.accountId}/invoices/${invoice.id}/${action as "finalize" | "pay" | "void" | "mark-uncollectible" | "lines"}`, body);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.body.status).toBe(after);
  });

  it("removing a line of a locked draft is refused the same way", async () => {
    const invoice = await draft();
    const release = await holdInvoiceLock(invoice.id);
    const path = `/invoices/${invoice.id}/lines/${invoice.lines[0].id}` as const;
    try {
      expectInvoiceLocked(await merchant.client.delete(path), invoice.id);
    } finally {
      await release();
    }
    expect((await merchant.client.get(`/invoices/${invoice.id}`)).body).toEqual(invoice);
    expect((await merchant.client.delete(path)).body.lines).toEqual([]);
  });

  it("two concurrent operations on one open invoice: exactly one proceeds, the other gets a 409, state is consistent", async () => {
    for (let round = 0; round < 5; round++) {
      const invoice = await open();
      const [pay, voided] = await Promise.all([
        merchant.client.post(`/invoices/${invoice.id}/pay`, { paid_out_of_band: true }),
        merchant.client.post(`/invoices/${invoice.id}/void`),
      ]);
      const statuses = [pay.status, voided.status].sort();
      expect(statuses, `${pay.text} ${voided.text}`).toEqual([200, 409]);
      const [winner, loser] = pay.status === 200 ? [pay, voided] : [voided, pay];
      // Refused while the winner held the lock (invoice_locked), or after it committed (invalid transition).
      if (loser.body.error_code !== undefined) expectInvoiceLocked(loser, invoice.id);
      else expectProblem(loser, 409, new RegExp(`is ${winner.body.status};`));

      const stored = (await merchant.client.get(`/invoices/${invoice.id}`)).body;
      expect(stored).toEqual(winner.body);
      const types = await typesOf(invoice.id);
      expect(types).toEqual(
        winner === pay
          ? ["invoice.payment_succeeded", "invoice.paid", "invoice.finalized", "invoice.created"]
          : ["invoice.voided", "invoice.finalized", "invoice.created"],
      );
    }
  });
});
