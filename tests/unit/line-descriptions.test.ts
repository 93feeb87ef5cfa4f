import { describe, expect, it } from "vitest";
import { defaultInvoicePrefix } from "@/lib/account-settings/prefix";
import { finalUsageDescription, prorationCreditDescription, prorationInvoiceDescription, subscriptionInvoiceDescription } from "@/lib/invoices/descriptions";
import { prorationLineDescription } from "@/lib/invoices/lines";
import { priceName } from "@/lib/prices/name";
import { lineInstant, lineRange } from "@/lib/time";
import { usageLineDescription } from "@/lib/usage/billing";

/** Invoice lines read as sentences (docs/rules/invoices.md, "Line descriptions"): names, units and dates, no ids or ISO timestamps. */
describe("line descriptions", () => {
  it("print a midnight as its day and any other instant to the second, in UTC", () => {
    expect(lineInstant(new Date("2027-01-01T00:00:00.000Z"))).toBe("1 Jan 2027");
    expect(lineInstant(new Date("2027-01-01T00:00:00.999Z"))).toBe("1 Jan 2027");
    expect(lineInstant(new Date("2027-12-15T14:05:09.321Z"))).toBe("15 Dec 2027 14:05:09 UTC");
    expect(lineRange(new Date("2027-01-01T00:00:00Z"), new Date("2027-02-01T00:00:00Z"))).toBe("1 Jan 2027 – 1 Feb 2027");
  });

  it("name a meter's usage by the meter, its aggregation unless a sum, the units and the range", () => {
    const start = new Date("2027-01-01T00:00:00Z");
    const end = new Date("2027-02-01T00:00:00Z");
    expect(usageLineDescription({ displayName: "API calls", aggregation: "sum" }, 1200, start, end)).toBe("API calls × 1,200 (1 Jan 2027 – 1 Feb 2027)");
    expect(usageLineDescription({ displayName: "Seats", aggregation: "max" }, 5, start, end)).toBe("Seats (max) × 5 (1 Jan 2027 – 1 Feb 2027)");
    expect(prorationLineDescription(new Date("2027-01-15T12:00:00Z"), end)).toBe("Proration (15 Jan 2027 12:00:00 UTC – 1 Feb 2027)");
  });
});

describe("defaultInvoicePrefix", () => {
  it.each([
    ["Acme Inc", "ACME"],
    ["Demo Company SAS", "DEMO"],
    ["Société Générale", "SOCIET"],
    ["Gutschrift GmbH", "GUTSCH"],
    ["AB Consulting", "ABCONS"],
    ["X", "INV"],
    ["株式会社", "INV"],
    [null, "INV"],
  ])("%s → %s", (name, prefix) => {
    expect(defaultInvoicePrefix(name)).toBe(prefix);
    expect(prefix).toMatch(/^[A-Z0-9]{3,6}$/);
  });
});

describe("subscription invoice descriptions", () => {
  const start = new Date("2027-01-01T00:00:00Z");
  const from = new Date("2027-01-15T12:00:00Z");
  const end = new Date("2027-02-01T00:00:00Z");

  it("name the subscription by its prices and the range in words, never an id", () => {
    expect(priceName("Pro plan", "Monthly")).toBe("Pro plan (Monthly)");
    expect(priceName("Pro plan", null)).toBe("Pro plan");
    const name = "Subscription to Pro plan (Monthly) and API calls";
    expect(subscriptionInvoiceDescription(name, start, end)).toBe("Subscription to Pro plan (Monthly) and API calls, 1 Jan 2027 – 1 Feb 2027");
    expect(finalUsageDescription(name, start, from)).toBe(`${name}: final usage, 1 Jan 2027 – 15 Jan 2027 12:00:00 UTC`);
    expect(prorationInvoiceDescription(name, from, end)).toBe(`${name}: proration of a change, 15 Jan 2027 12:00:00 UTC – 1 Feb 2027`);
    expect(prorationCreditDescription(name, from, end)).toBe(`${name}: unused time credited, 15 Jan 2027 12:00:00 UTC – 1 Feb 2027`);
  });
});
