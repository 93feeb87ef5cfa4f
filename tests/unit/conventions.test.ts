import { describe, expect, it } from "vitest";
import { z } from "zod";
import { handle, routeHandlers } from "@/lib/api/handler";
import { defineOperation } from "@/lib/api/operation";
import { problemBody } from "@/lib/api/problem";
import { deriveBillingStatus } from "@/lib/billing-status/service";
import { retryableConflict } from "@/lib/errors";
import { EVENT_CATALOGUE, EVENT_TYPES, aggregateTypeOf } from "@/lib/events/catalogue";

const context = { params: Promise.resolve({}) };
const DAY = 24 * 60 * 60 * 1000;

function deprecatedRoute(sunset: Date) {
  const operation = defineOperation({
    operationId: "oldThing",
    method: "POST",
    path: "/old-thing",
    summary: "An old operation",
    tag: "Test",
    access: "public",
    body: z.strictObject({ value: z.number() }),
    response: { status: 200, description: "ok", schema: z.object({ doubled: z.number() }) },
    deprecated: { sunset, replacement: "POST /api/new-thing", link: "/reference#tag/new-thing" },
  });
  return routeHandlers({ POST: handle(operation, async ({ body }) => ({ doubled: body.value * 2 })) });
}

const post = (body: unknown) =>
  new Request("http://localhost/api/old-thing", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

describe("the deprecation option of a route", () => {
  it("keeps working before the sunset, announcing Deprecation, Sunset and the successor", async () => {
    const sunset = new Date(Date.now() + 180 * DAY);
    const response = await deprecatedRoute(sunset).POST(post({ value: 21 }), context);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ doubled: 42 });
    expect(response.headers.get("Deprecation")).toBe("true");
    expect(response.headers.get("Sunset")).toBe(sunset.toUTCString());
    expect(response.headers.get("Link")).toBe('</reference#tag/new-thing>; rel="successor-version"');
  });

  it("answers 410 naming the replacement from the sunset on, whatever the input", async () => {
    const routes = deprecatedRoute(new Date(Date.now() - 1000));
    for (const body of [{ value: 21 }, { value: "not a number" }]) {
      const response = await routes.POST(post(body), context);
      expect(response.status).toBe(410);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      const problem = await response.json();
      expect(problem).toMatchObject({
        status: 410,
        title: "Gone",
        replacement: "POST /api/new-thing",
        instance: "/api/old-thing",
        request_id: expect.stringMatching(/^req_prod_/),
      });
      expect(problem.detail).toContain("POST /api/new-thing");
      expect(response.headers.get("Link")).toContain("successor-version");
    }
  });
});

describe("the retryable conflict helper", () => {
  it("makes the spec's 409 invoice_locked body", () => {
    const error = retryableConflict({
      errorCode: "invoice_locked",
      title: "Invoice Locked",
      detail: "Another operation is modifying invoice in_prod_x.",
      fields: { invoice_id: "in_prod_x", subscription_id: "sub_prod_y" },
    });
    expect(problemBody(error, "req_prod_1", "/api/x")).toEqual({
      type: "about:blank",
      title: "Invoice Locked",
      status: 409,
      detail: "Another operation is modifying invoice in_prod_x.",
      instance: "/api/x",
      request_id: "req_prod_1",
      error_code: "invoice_locked",
      retryable: true,
      invoice_id: "in_prod_x",
      subscription_id: "sub_prod_y",
    });
  });
});

describe("the event catalogue", () => {
  it("holds the spec's 51 types in 11 groups, then our own (features and entitlements: 4 in 3; the portal's configuration: 1 in 1), each type once", () => {
    expect(EVENT_CATALOGUE).toHaveLength(11 + 3 + 1);
    expect(EVENT_CATALOGUE.slice(0, 11).flatMap((group) => group.types)).toHaveLength(51);
    expect(EVENT_TYPES).toHaveLength(51 + 4 + 1);
    expect(new Set(EVENT_TYPES).size).toBe(51 + 4 + 1);
    expect(aggregateTypeOf("customer.subscription.trial_will_end")).toBe("subscription");
    expect(aggregateTypeOf("customer.discount.created")).toBe("customer_discount");
    expect(aggregateTypeOf("checkout.session.expired")).toBe("checkout_session");
    expect(aggregateTypeOf("invoice.paid")).toBe("invoice");
  });
});

describe("billing status derivation", () => {
  const now = new Date("2026-11-22T12:00:00Z");
  it("counts trial days up, never below zero, and only while trialing", () => {
    const base = { subscriptionEnd: null, citProcessingEnabled: true, mitProcessingEnabled: true };
    const trialEnd = new Date(now.getTime() + 0.2 * DAY);
    expect(deriveBillingStatus({ ...base, billingStatus: "trialing", trialEnd }, now).trial_days_remaining).toBe(1);
    const ended = new Date(now.getTime() - DAY);
    expect(deriveBillingStatus({ ...base, billingStatus: "trialing", trialEnd: ended }, now).trial_days_remaining).toBe(0);
    expect(deriveBillingStatus({ ...base, billingStatus: "active", trialEnd }, now).trial_days_remaining).toBeNull();
  });

  it("allows nothing without a status", () => {
    const result = deriveBillingStatus(
      { billingStatus: null, trialEnd: null, subscriptionEnd: null, citProcessingEnabled: true, mitProcessingEnabled: true },
      now,
    );
    expect(result).toMatchObject({ cit_allowed: false, mit_allowed: false, billing_status: null });
  });
});

describe("body validation", () => {
  const schema = z.strictObject({ kind: z.enum(["a", "b"]), name: z.string(), note: z.string().optional() });
  it("answers 400 naming every missing required field, whatever its type", async () => {
    const { parseBody } = await import("@/lib/api/validation");
    expect(() => parseBody(schema, { note: "x" })).toThrow(/Missing required fields: kind, name/);
  });
  it("answers 422 listing invalid and unknown fields", async () => {
    const { parseBody } = await import("@/lib/api/validation");
    try {
      parseBody(schema, { kind: "c", name: "n", extra: 1 });
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ category: "validation" });
      expect((error as { extras: { errors: { field: string }[] } }).extras.errors.map((e) => e.field).sort()).toEqual(["extra", "kind"]);
    }
  });
});
