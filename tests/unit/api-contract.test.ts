import { describe, expect, it } from "vitest";
import examples from "@/lib/events/examples.json";
import {
  checkOffContractResponse,
  checkResponse,
  ContractViolation,
  resolveOperation,
  takeValidatedResponseCount,
} from "../helpers/api-contract";

/** The API tests' contract check (tests/helpers/api-contract.ts) on hand-made responses: it passes what the document declares and fails the rest. */

const json = new Headers({ "content-type": "application/json", "x-request-id": "req_test_1" });
const problemHeaders = new Headers({ "content-type": "application/problem+json" });
const customer = {
  id: "cus_test_1",
  object: "customer",
  email: "a@example.com",
  name: null,
  address: null,
  preferred_locale: null,
  tax_ids: [],
  invoice_emails: [],
  default_tax_rate: null,
  default_payment_method: null,
  metadata: {},
  balances: {},
  currency: null,
  livemode: false,
  created: "2026-01-01T00:00:00.000Z",
  updated: "2026-01-01T00:00:00.000Z",
};
const problem = { type: "about:blank", title: "Not Found", status: 404, detail: "No such customer.", instance: "/api/customers/x", request_id: "req_1" };

describe("the test client's contract check", () => {
  it("resolves a request to its operation with the router's rule: a literal segment wins over a parameter", () => {
    expect(resolveOperation("GET", "/events/feed?limit=1")?.operationId).toBe("readEventFeedForTokenAccount");
    expect(resolveOperation("GET", "/acc_1/events")?.operationId).toBe("listEvents");
    expect(resolveOperation("POST", "/acc_1/events")).toBeUndefined();
    expect(resolveOperation("GET", "/acc_1/customers/")).toBeUndefined();
  });

  it("passes a body the operation declares, and counts it", () => {
    takeValidatedResponseCount();
    checkResponse({ method: "GET", path: "/customers/cus_test_1", status: 200, headers: json, body: customer });
    checkResponse({ method: "GET", path: "/customers/nope", status: 404, headers: problemHeaders, body: problem });
    expect(takeValidatedResponseCount()).toBe(2);
  });

  it("fails a body that differs from the declaration, naming the operation, the field and the request id", () => {
    const wrong = { ...customer, email: 42 };
    expect(() => checkResponse({ method: "GET", path: "/customers/cus_test_1", status: 200, headers: json, body: wrong })).toThrow(
      ContractViolation,
    );
    expect(() => checkResponse({ method: "GET", path: "/customers/cus_test_1", status: 200, headers: json, body: wrong })).toThrow(
      /getCustomerForTokenAccount: GET \/customers\/cus_test_1 answered 200 \(request_id req_test_1\)[\s\S]*\/email must be string/,
    );
  });

  it("fails an undeclared success status, an unknown operation, and an error that is not a Problem", () => {
    expect(() => checkResponse({ method: "GET", path: "/customers/cus_test_1", status: 201, headers: json, body: customer })).toThrow(/declares no such status/);
    expect(() => checkResponse({ method: "GET", path: "/nowhere", status: 404, headers: problemHeaders, body: problem })).toThrow(/no such operation/);
    expect(() => checkResponse({ method: "GET", path: "/customers/x", status: 404, headers: json, body: problem })).toThrow(/application\/problem\+json/);
    expect(() => checkResponse({ method: "GET", path: "/customers/x", status: 404, headers: problemHeaders, body: { ...problem, extra: 1 } })).toThrow(
      /additional properties/,
    );
  });

  it("off the contract, still holds a problem body to Problem and leaves other bodies alone", () => {
    expect(() => checkOffContractResponse({ method: "PUT", path: "/customers", status: 405, headers: problemHeaders, body: problem })).not.toThrow();
    expect(() => checkOffContractResponse({ method: "PUT", path: "/customers", status: 405, headers: problemHeaders, body: { title: 1 } })).toThrow(
      ContractViolation,
    );
    expect(() => checkOffContractResponse({ method: "GET", path: "/nowhere", status: 200, headers: new Headers(), body: "<html>" })).not.toThrow();
  });

  it("holds an event to the branch of the union its type names: every type's example passes, a wrong body, an unknown or a missing type fails", () => {
    const exampleEvents = Object.values(examples as Record<string, { event: { type: string; data: Record<string, unknown> } }>).map((example) => example.event);
    expect(exampleEvents.length).toBeGreaterThanOrEqual(51);
    const getEvent = (body: unknown) => checkResponse({ method: "GET", path: "/acc_1/events/evt_1", status: 200, headers: json, body });
    for (const event of exampleEvents) expect(() => getEvent(event), event.type).not.toThrow();
    const [payment] = exampleEvents.filter((event) => event.type === "payment.succeeded");
    // The customer's data under a payment's type: it is a valid body of another branch, not of its own.
    const [customerEvent] = exampleEvents.filter((event) => event.type === "customer.created");
    expect(() => getEvent({ ...payment, data: customerEvent!.data })).toThrow(/getEvent: GET \/acc_1\/events\/evt_1 answered 200[\s\S]*\/data/);
    expect(() => getEvent({ ...payment, data: { ...payment!.data, amount_atom: "2500" } })).toThrow(/\/data\/amount_atom must be integer/);
    expect(() => getEvent({ ...payment, type: "payment.teleported" })).toThrow(ContractViolation);
    const { type: _type, ...untyped } = payment!;
    expect(() => getEvent(untyped)).toThrow(ContractViolation);
  });
});
