import { describe, expect, it } from "vitest";
import { plainMessage, toAtoms } from "@/components/objects/form-values";

describe("plainMessage", () => {
  it("turns validator wording into plain words", () => {
    expect(plainMessage("Too big: expected string to have <=2048 characters")).toBe("At most 2048 characters.");
    expect(plainMessage("Too small: expected string to have >=1 characters")).toBe("At least 1 character.");
    expect(plainMessage("Too big: expected number to be <=100")).toBe("Must be at most 100.");
    expect(plainMessage("Too big: expected array to have <=20 items")).toBe("At most 20 items.");
    expect(plainMessage("Invalid input: expected string, received undefined")).toBe("Required.");
    expect(plainMessage("Invalid input: expected number, received string")).toBe("Must be a number.");
  });

  it("leaves the API's own sentences alone", () => {
    expect(plainMessage("Must be a three-letter ISO 4217 currency code.")).toBe("Must be a three-letter ISO 4217 currency code.");
  });
});

describe("toAtoms", () => {
  it("uses the currency's minor digits", () => {
    expect(toAtoms("12.50", "usd")).toBe(1250);
    expect(toAtoms("0.1", "USD")).toBe(10);
    expect(toAtoms("500", "jpy")).toBe(500);
    expect(toAtoms("1.234", "kwd")).toBe(1234);
  });

  it("sends anything else as typed, for the API to explain", () => {
    expect(toAtoms("12,50", "usd")).toBe("12,50");
    expect(toAtoms("-3", "usd")).toBe("-3");
    expect(toAtoms("5", "not-a-currency")).toBe(500);
  });
});
