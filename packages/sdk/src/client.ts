import { createCall, type Call, type CallInput, type CallOutput, type OperationId } from "./call.ts";
import { BillingError } from "./errors.ts";
import { OPERATIONS } from "./generated/operations.ts";
import { backoff, DEFAULT_RETRY, retryDelay, sleep, type RetryOptions } from "./retry.ts";
import { webhooks } from "./webhooks.ts";

export type BillingOptions = {
  /** A secret API token (`sk_…`), sent as `Authorization: Bearer …`. */
  token: string;
  /** The API's root, ending in `/api`: `https://billing.example.com/api`. */
  baseUrl: string;
  /** Retries after the first attempt (see RetryOptions). Default 2; 0 disables retries. */
  maxRetries?: number;
  /** Backoff tuning when the server gives no `Retry-After`. */
  retry?: Partial<Omit<RetryOptions, "maxRetries">>;
  /** Sent with every request. */
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
};

/** A call's input: the operation's parameters and body, plus an optional Idempotency-Key. */
export type BillingInput<Id extends OperationId> = CallInput<Id> & {
  /** Sent as `Idempotency-Key`. POSTs get a random one when left out (and retries are on). */
  idempotencyKey?: string;
};

export type BillingArgs<Id extends OperationId> =
  Partial<BillingInput<Id>> extends BillingInput<Id> ? [input?: BillingInput<Id>] : [input: BillingInput<Id>];

/** One method per operation: `billing.operations.getCustomer({ path: { … } })`. */
export type OperationMethods = { [Id in OperationId]: (...args: BillingArgs<Id>) => Promise<CallOutput<Id>> };

/**
 * The billing API, typed from its OpenAPI document: `await billing.call("getCustomer", { path: {
 * account_id, customer_id } })` returns the customer or throws a BillingError carrying the problem.
 * 429 and 503 with `Retry-After`, `invoice_locked` conflicts and network errors are retried; every
 * POST carries an Idempotency-Key (yours or a random one) that stays the same across its retries.
 */
export class Billing {
  readonly webhooks = webhooks;
  readonly operations: OperationMethods;
  readonly #call: Call;
  readonly #retry: RetryOptions;

  constructor(options: BillingOptions) {
    this.#retry = { ...DEFAULT_RETRY, ...options.retry, maxRetries: options.maxRetries ?? DEFAULT_RETRY.maxRetries };
    this.#call = createCall({
      baseUrl: options.baseUrl,
      headers: { ...options.headers, Authorization: `Bearer ${options.token}` },
      fetch: retryingFetch(options.fetch ?? globalThis.fetch, this.#retry),
    });
    const methods = Object.keys(OPERATIONS).map((id) => [id, (input?: object) => this.#send(id as OperationId, input)]);
    this.operations = Object.fromEntries(methods) as OperationMethods;
  }

  /** Calls the operation `operationId`; resolves to its success body, rejects with a BillingError. */
  call<Id extends OperationId>(operationId: Id, ...args: BillingArgs<Id>): Promise<CallOutput<Id>> {
    return this.#send(operationId, args[0]);
  }

  async #send<Id extends OperationId>(operationId: Id, input: object | undefined): Promise<CallOutput<Id>> {
    const { idempotencyKey, headers = {}, ...rest } = (input ?? {}) as { idempotencyKey?: string; headers?: Record<string, string> };
    const given = idempotencyKey ?? headerValue(headers, "idempotency-key");
    const key = given ?? (OPERATIONS[operationId].method === "POST" && this.#retry.maxRetries > 0 ? crypto.randomUUID() : undefined);
    const sent = { ...withoutHeader(headers, "idempotency-key"), ...(key ? { "Idempotency-Key": key } : {}) };
    // The input was checked against the operation's types at the call site (call / operations).
    const send = this.#call as (id: OperationId, input: object) => ReturnType<Call>;
    const result = await send(operationId, { ...rest, headers: sent });
    if (!result.ok) throw new BillingError(result.status, result.problem, result.response);
    return result.data as CallOutput<Id>;
  }
}

/** A fetch that re-sends the same request (same body, same headers) while retryDelay says so. */
function retryingFetch(fetchImpl: typeof globalThis.fetch, retry: RetryOptions): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetchImpl(request.clone());
      } catch (error) {
        // No answer at all: safe to send again (a POST carries its Idempotency-Key), unless aborted.
        if (request.signal.aborted || attempt >= retry.maxRetries) throw error;
        await sleep(backoff(attempt, retry), request.signal);
        continue;
      }
      const delay = await retryDelay(response, attempt, retry);
      if (delay === null) return response;
      await response.body?.cancel();
      await sleep(delay, request.signal);
    }
  };
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
}

function withoutHeader(headers: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([key]) => key.toLowerCase() !== name));
}
