/*
 * Type tests of the SDK, checked by `npm run typecheck` (expect-type through vitest's expectTypeOf;
 * `@ts-expect-error` fails the typecheck when the line under it compiles). The runtime part only
 * makes the file a test; what it proves is proved by the compiler.
 */
import { describe, expectTypeOf, it } from "vitest";
import {
  Billing,
  OPERATIONS,
  webhooks,
  type components,
  type operations,
  type OperationId,
  type WebhookEvent,
} from "@/packages/sdk/src/index";

type Schemas = components["schemas"];
const billing = new Billing({ token: "sk_test", baseUrl: "http://127.0.0.1:1/api", maxRetries: 0 });

/** Type-checked but never run (no server): the calls below only have to compile, or not. */
function typedCalls() {
  // @ts-expect-error an operation id the document does not have
  void billing.call("getCustomers", { path: { customer_id: "cus_1" } });
  // @ts-expect-error the required path parameter customer_id is missing
  void billing.call("getCustomerForTokenAccount", { path: {} });
  // @ts-expect-error the input itself is required when a parameter is
  void billing.call("getCustomerForTokenAccount");
  // @ts-expect-error account_id is required on the scoped operation
  void billing.call("getCustomer", { path: { customer_id: "cus_1" } });
  // @ts-expect-error a body field of the wrong type
  void billing.call("createCustomerForTokenAccount", { body: { email: 42 } });
  // @ts-expect-error per-operation methods are typed the same way
  void billing.operations.getCustomerForTokenAccount({ path: {} });
  // Operations without required inputs take none.
  void billing.call("listCustomersForTokenAccount");
  return [
    billing.call("getCustomer", { path: { account_id: "acc_1", customer_id: "cus_1" } }),
    billing.operations.createCustomerForTokenAccount({ body: { email: "a@example.com" }, idempotencyKey: "order-42" }),
  ] as const;
}

function handle(event: WebhookEvent) {
  if (event.type === "invoice.paid") {
    expectTypeOf(event.data.object).toEqualTypeOf<Schemas["Invoice"]>();
  }
  if (event.type === "customer.subscription.created") {
    expectTypeOf(event.data.object).toEqualTypeOf<Schemas["Subscription"]>();
  }
  switch (event.type) {
    case "customer.created":
      expectTypeOf(event.data.object).toEqualTypeOf<Schemas["Customer"]>();
      // @ts-expect-error a customer has no invoice fields
      void event.data.object.amount_due;
      break;
    case "payment_intent.succeeded":
      expectTypeOf(event.data.object).toEqualTypeOf<Schemas["PaymentIntent"]>();
      break;
  }
}

describe("SDK types", () => {
  it("types every operation, its input and its output from the document", () => {
    // 100 % of the runtime operations list is typed (and the document has no untyped extra).
    expectTypeOf<keyof typeof OPERATIONS>().toEqualTypeOf<OperationId>();
    // The document's other operations are its webhooks (`…Webhook`), not API calls.
    expectTypeOf<Exclude<OperationId, keyof operations>>().toEqualTypeOf<never>();
    expectTypeOf<Exclude<keyof operations, OperationId>>().toExtend<`${string}Webhook`>();
    expectTypeOf(typedCalls).returns.toEqualTypeOf<readonly [Promise<Schemas["Customer"]>, Promise<Schemas["Customer"]>]>();
  });

  it("narrows a verified webhook event by its type", () => {
    expectTypeOf(webhooks.verify).returns.toEqualTypeOf<WebhookEvent>();
    expectTypeOf<WebhookEvent["type"]>().toEqualTypeOf<Schemas["EventType"]>();
    expectTypeOf(handle).parameter(0).toEqualTypeOf<Schemas["WebhookEvent"]>();
  });
});
