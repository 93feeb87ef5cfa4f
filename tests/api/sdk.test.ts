/*
 * The SDK (packages/sdk) against the real server: typed calls, problems as BillingError, the
 * server's idempotency replay, a real invoice_locked retried to success, and a real delivery to an
 * HTTPS receiver verified with webhooks.verify.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { holdInvoiceLock } from "../helpers/invoice-lock";
import { Billing, BillingError, webhooks, WebhookVerificationError } from "@/packages/sdk/src/index";
import { apiBaseUrl } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { Receiver } from "../helpers/receiver";

let merchant: Merchant;
let billing: Billing;
const receivers: Receiver[] = [];
beforeAll(async () => {
  merchant = await newMerchant();
  billing = new Billing({ token: merchant.secret.token, baseUrl: apiBaseUrl() });
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
});


describe("the SDK against the server", () => {
  it("creates and reads a customer, replays a POST with the same Idempotency-Key, and throws problems as BillingError", async () => {
    const created = await billing.call("createCustomerForTokenAccount", { body: { email: "sdk@example.com" }, idempotencyKey: "sdk-test-1" });
    expect(created).toMatchObject({ object: "customer", email: "sdk@example.com" });
    const replayed = await billing.call("createCustomerForTokenAccount", { body: { email: "sdk@example.com" }, idempotencyKey: "sdk-test-1" });
    expect(replayed.id).toBe(created.id);

    const read = await billing.operations.getCustomer({ path: { account_id: merchant.accountId, customer_id: created.id } });
    expect(read).toEqual(created);
    const page = await billing.call("listCustomersForTokenAccount", { query: { limit: 10 } });
    expect(page.items.map((customer) => customer.id)).toContain(created.id);

    const missing = await billing.call("getCustomerForTokenAccount", { path: { customer_id: "cus_missing" } }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(BillingError);
    expect(missing).toMatchObject({ status: 404, title: "Not Found" });
    expect((missing as BillingError).requestId).toMatch(/^req_/);

    const invalid = await billing
      .call("createCustomerForTokenAccount", { body: { email: "not-an-email" } })
      .catch((error: unknown) => error);
    expect(invalid).toMatchObject({ status: 422 });
    expect((invalid as BillingError).errors?.map((error) => error.field)).toContain("email");
  });

  it("retries a real invoice_locked with the same Idempotency-Key until the lock is gone, and pays once", async () => {
    const customer = await billing.call("createCustomerForTokenAccount", { body: { email: "locked-sdk@example.com" } });
    const draft = await billing.call("createInvoiceForTokenAccount", {
      body: { customer: customer.id, currency: "usd", lines: [{ unit_amount_atom: 1500, description: "Plan" }] },
    });
    await billing.call("finalizeInvoiceForTokenAccount", { path: { invoice_id: draft.id } });
    const release = await holdInvoiceLock(draft.id);

    // Each attempt passes through this fetch: the lock is released once the first one got its 409.
    const attempts: { status: number; key: string | null }[] = [];
    const observed = new Billing({
      token: merchant.secret.token,
      baseUrl: apiBaseUrl(),
      maxRetries: 4,
      retry: { baseDelayMs: 200 },
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const response = await fetch(request);
        attempts.push({ status: response.status, key: request.headers.get("Idempotency-Key") });
        if (attempts.length === 1) await release();
        return response;
      },
    });
    const paid = await observed.call("payInvoiceForTokenAccount", { path: { invoice_id: draft.id }, body: { paid_out_of_band: true } });

    expect(paid).toMatchObject({ id: draft.id, status: "paid" });
    expect(attempts.map((attempt) => attempt.status)).toEqual([409, 200]);
    expect(attempts[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(attempts[1]!.key).toBe(attempts[0]!.key);
    const events = await billing.call("listEvents", { path: { account_id: merchant.accountId }, query: { aggregate_id: draft.id } });
    expect(events.items.filter((event) => event.type === "invoice.paid")).toHaveLength(1);
  });

  it("verifies a real delivery to an HTTPS receiver, narrowing by type; a tampered body or timestamp is refused", async () => {
    const receiver = await Receiver.start();
    receivers.push(receiver);
    const endpoint = await billing.call("createWebhookEndpoint", {
      path: { account_id: merchant.accountId },
      body: { url: receiver.url, events: ["customer.created"] },
    });
    receiver.useSecret(endpoint.secret);

    const customer = await billing.call("createCustomerForTokenAccount", { body: { email: "hooked@example.com" } });
    const [delivery] = await receiver.waitFor(1);

    const event = webhooks.verify(delivery!.rawBody, delivery!.headers, endpoint.secret);
    expect(event.type).toBe("customer.created");
    if (event.type !== "customer.created") throw new Error(`unexpected ${event.type}`);
    // Narrowed: data.object is a Customer.
    expect(event.data.object.email).toBe("hooked@example.com");
    expect(event.data.object.id).toBe(customer.id);
    expect(delivery!.headers["webhook-id"]).toBe(event.id);

    const tampered = Buffer.from(delivery!.rawBody.toString("utf8").replace("hooked@", "hacked@"));
    expect(() => webhooks.verify(tampered, delivery!.headers, endpoint.secret)).toThrow(WebhookVerificationError);
    const shifted = { ...delivery!.headers, "webhook-timestamp": String(Number(delivery!.headers["webhook-timestamp"]) - 1) };
    expect(() => webhooks.verify(delivery!.rawBody, shifted, endpoint.secret)).toThrow(WebhookVerificationError);
    expect(() => webhooks.verify(delivery!.rawBody, delivery!.headers, `whsec_${Buffer.alloc(32).toString("base64")}`)).toThrow(
      WebhookVerificationError,
    );
  });
});
