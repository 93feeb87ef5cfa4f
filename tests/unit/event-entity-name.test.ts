import { describe, expect, it } from "vitest";
import { entityName, timelineTitle } from "@/components/events/entity";

/** The events list and an event's page label an entity's timeline link by its name, from the event's snapshot. */
describe("entityName", () => {
  it("a tax rate: display name and percentage", () => {
    expect(entityName({ aggregate_type: "tax_rate", data: { id: "txr_test_abc123", display_name: "USt.", percentage: 19 } })).toBe("USt. 19 %");
  });

  it("a user or member: name and email, or the email alone; a customer: name, else email", () => {
    expect(entityName({ aggregate_type: "user", data: { id: "user_test_abc123", email: "ada@example.com", name: "Ada Merchant" } })).toBe("Ada Merchant <ada@example.com>");
    expect(entityName({ aggregate_type: "member", data: { id: "inv_abc123", email: "bob@example.com", name: null } })).toBe("bob@example.com");
    expect(entityName({ aggregate_type: "customer", data: { id: "cus_test_abc123", email: "lena@example.com", name: "Lena Schmidt" } })).toBe("Lena Schmidt");
    expect(entityName({ aggregate_type: "customer", data: { id: "cus_test_abc123", email: "lena@example.com", name: null } })).toBe("lena@example.com");
  });

  it("a price by nickname and amount, an invoice by number (a draft as such), others by their name", () => {
    const price = { id: "price_1", currency: "eur", unit_amount_atom: 1500, billing_scheme: "per_unit", recurring: { interval: "month" }, nickname: "Monthly" };
    expect(entityName({ aggregate_type: "price", data: price })).toBe("Monthly · €15.00 / month");
    expect(entityName({ aggregate_type: "invoice", data: { id: "in_1", number: "JOURNE-0001", status: "open" } })).toBe("Invoice JOURNE-0001");
    expect(entityName({ aggregate_type: "invoice", data: { id: "in_1", number: null, status: "draft" } })).toBe("Draft invoice");
    expect(entityName({ aggregate_type: "meter", data: { id: "mtr_1", display_name: "API calls" } })).toBe("API calls");
    expect(entityName({ aggregate_type: "api_token", data: { id: "tok_1", name: "Server" } })).toBe("Server");
  });

  it("nothing to name it by: null (the link shows the id)", () => {
    expect(entityName({ aggregate_type: "payment", data: { id: "py_1", amount_atom: 100 } })).toBeNull();
    expect(entityName({ aggregate_type: "tax_rate", data: null })).toBeNull();
  });
});

describe("timelineTitle", () => {
  it("names the filtered entity from one of its events, else shows the id", () => {
    const event = { aggregate_type: "tax_rate", aggregate_id: "txr_test_abc123", data: { display_name: "USt.", percentage: 19 } };
    expect(timelineTitle("txr_test_abc123", [event])).toBe("Timeline of USt. 19 %");
    expect(timelineTitle("txr_test_other1", [event])).toBe("Timeline of txr_test_other1");
  });
});
