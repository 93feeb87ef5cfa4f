import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Billing, BillingError } from "@/packages/sdk/src/index";

/** One scripted answer of the loopback server. */
type Answer = { status: number; headers?: Record<string, string>; body?: unknown };
type Received = { method: string; url: string; headers: IncomingHttpHeaders; body: string };

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A real HTTP server on loopback answering `answers` in order (the last one repeats). */
async function scriptedServer(answers: Answer[]) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const answer = answers[Math.min(received.length - 1, answers.length - 1)]!;
      res.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers }).end(JSON.stringify(answer.body ?? {}));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const billing = (maxRetries = 2) =>
    new Billing({ token: "sk_test", baseUrl: `http://127.0.0.1:${port}/api`, maxRetries, retry: { baseDelayMs: 20 } });
  return { received, billing };
}

const customer = { id: "cus_1", object: "customer", email: "a@example.com" };
const problem = (status: number, title: string, extra: object = {}) => ({
  type: "about:blank",
  title,
  status,
  detail: `${title}.`,
  instance: "/api/customers",
  request_id: "req_1",
  ...extra,
});
const locked = { status: 409, body: problem(409, "Invoice Locked", { error_code: "invoice_locked", retryable: true, invoice_id: "in_1" }) };
const limited = { status: 429, headers: { "Retry-After": "1" }, body: problem(429, "Too Many Requests") };

describe("Billing retries", () => {
  it("retries a 429 after its Retry-After and an invoice_locked 409, sending one Idempotency-Key on every attempt", async () => {
    const { received, billing } = await scriptedServer([limited, locked, { status: 201, body: customer }]);
    const created = await billing().call("createCustomerForTokenAccount", { body: { email: "a@example.com" } });

    expect(created).toEqual(customer);
    expect(received.map((r) => [r.method, r.url])).toEqual(Array(3).fill(["POST", "/api/customers"]));
    const keys = received.map((r) => r.headers["idempotency-key"]);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(1);
    expect(received.map((r) => JSON.parse(r.body))).toEqual(Array(3).fill({ email: "a@example.com" }));
    expect(received.every((r) => r.headers.authorization === "Bearer sk_test")).toBe(true);
  });

  it("sends the caller's Idempotency-Key unchanged on every attempt", async () => {
    const { received, billing } = await scriptedServer([locked, { status: 201, body: customer }]);
    await billing().call("createCustomerForTokenAccount", { body: { email: "a@example.com" }, idempotencyKey: "order-42" });
    expect(received.map((r) => r.headers["idempotency-key"])).toEqual(["order-42", "order-42"]);
  });

  it("waits at least the server's Retry-After before the retry", async () => {
    const { received, billing } = await scriptedServer([limited, { status: 200, body: customer }]);
    const started = Date.now();
    await billing().call("getCustomerForTokenAccount", { path: { customer_id: "cus_1" } });
    expect(received).toHaveLength(2);
    // The hint is a lower bound the client must honour, not a timing assertion on the machine.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it("gives up after maxRetries and throws the last problem as a BillingError", async () => {
    const { received, billing } = await scriptedServer([locked]);
    const error = await billing(2)
      .call("createCustomerForTokenAccount", { body: { email: "a@example.com" } })
      .catch((caught: unknown) => caught);

    expect(received).toHaveLength(3);
    expect(error).toBeInstanceOf(BillingError);
    expect(error).toMatchObject({ status: 409, title: "Invoice Locked", errorCode: "invoice_locked", requestId: "req_1" });
    expect((error as BillingError).problem.invoice_id).toBe("in_1");
  });

  it("does not retry other errors, and carries field errors", async () => {
    const invalid = problem(422, "Unprocessable Entity", { errors: [{ field: "email", message: "Invalid email." }] });
    const other409 = problem(409, "Conflict", { error_code: "PARTIAL_APPLY_RETRYABLE" });
    for (const answer of [{ status: 422, body: invalid }, { status: 409, body: other409 }, { status: 500, body: problem(500, "Internal") }]) {
      const { received, billing } = await scriptedServer([answer, { status: 201, body: customer }]);
      const error = await billing()
        .call("createCustomerForTokenAccount", { body: { email: "x" } })
        .catch((caught: unknown) => caught);
      expect(received).toHaveLength(1);
      expect(error).toMatchObject({ status: answer.status, title: answer.body.title, detail: answer.body.detail });
    }
    const { billing } = await scriptedServer([{ status: 422, body: invalid }]);
    const error = await billing()
      .call("createCustomerForTokenAccount", { body: { email: "x" } })
      .catch((caught: unknown) => caught);
    expect((error as BillingError).errors).toEqual([{ field: "email", message: "Invalid email." }]);
  });

  it("with maxRetries 0 sends once and adds no Idempotency-Key of its own; GETs never get one", async () => {
    const { received, billing } = await scriptedServer([limited]);
    await expect(billing(0).call("createCustomerForTokenAccount", { body: { email: "a@example.com" } })).rejects.toThrow(BillingError);
    expect(received).toHaveLength(1);
    expect(received[0]!.headers["idempotency-key"]).toBeUndefined();

    const other = await scriptedServer([{ status: 200, body: customer }]);
    await other.billing().operations.getCustomerForTokenAccount({ path: { customer_id: "cus_1" } });
    expect(other.received[0]!.url).toBe("/api/customers/cus_1");
    expect(other.received[0]!.headers["idempotency-key"]).toBeUndefined();
  });

  it("retries a request that got no answer (connection refused) and then gives up", async () => {
    const { billing } = await scriptedServer([{ status: 200, body: customer }]);
    const refused = new Billing({ token: "sk_test", baseUrl: "http://127.0.0.1:1/api", maxRetries: 1, retry: { baseDelayMs: 10 } });
    await expect(refused.call("listCustomersForTokenAccount")).rejects.toThrow(TypeError);
    await expect(billing().call("listCustomersForTokenAccount")).resolves.toEqual(customer);
  });
});
