import { describe, expect, it } from "vitest";
import { plainMessage, toAtoms } from "@/components/objects/form-values";
import { formatAtoms, parseAmount } from "@/lib/money";

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
  it("uses the currency's minor digits and the locale's separators", () => {
    expect(toAtoms("12.50", "usd", "en")).toBe(1250);
    expect(toAtoms("0.1", "USD", "en")).toBe(10);
    expect(toAtoms("500", "jpy", "en")).toBe(500);
    expect(toAtoms("1.234", "kwd", "en")).toBe(1234);
    expect(toAtoms("15,00", "eur", "de")).toBe(1500);
  });

  it("sends what it cannot read as typed, for the API to explain", () => {
    expect(toAtoms("12,5,0", "usd", "en")).toBe("12,5,0");
    expect(toAtoms("-3", "usd", "en")).toBe("-3");
    expect(toAtoms("5", "not-a-currency", "en")).toBe(500);
  });
});

describe("parseAmount", () => {
  const atoms = (text: string, currency: string, locale: string, allowNegative = false) => {
    const parsed = parseAmount(text, currency, locale, { allowNegative });
    return parsed.ok ? parsed.atoms : parsed.message;
  };

  it.each([
    ["15", "eur", "en", 1500],
    ["15.00", "eur", "en", 1500],
    ["15,00", "eur", "de", 1500],
    ["15", "eur", "de", 1500],
    [" 15,5 ", "eur", "de", 1550],
    ["1.234,56", "eur", "de", 123456],
    ["1.234", "eur", "de", 123400],
    ["1 234,56", "eur", "fr", 123456],
    ["1\u202f234,56", "eur", "fr", 123456],
    ["1,234.56", "usd", "en", 123456],
    ["1,234", "usd", "en", 123400],
    ["12,345,678.9", "usd", "en", 1234567890],
    // A person who writes the other convention: a lone separator that does not group by threes.
    ["15.00", "eur", "de", 1500],
    ["15,00", "usd", "en", 1500],
    [".5", "usd", "en", 50],
    ["15.", "usd", "en", 1500],
    ["0.01", "usd", "en", 1],
    ["007", "usd", "en", 700],
    // Exponent 0 and 3.
    ["1500", "jpy", "en", 1500],
    ["1,500", "jpy", "en", 1500],
    ["1.500", "jpy", "de", 1500],
    ["1.5", "kwd", "en", 1500],
    ["1,234", "kwd", "de", 1234],
    ["0.001", "bhd", "en", 1],
    ["2,5", "BHD", "de", 2500],
    // Beyond a double's exact digits, still exact.
    ["90071992547409.91", "usd", "en", 9007199254740991],
  ])("%s %s in %s is %i atoms", (text, currency, locale, expected) => {
    expect(atoms(text, currency, locale)).toBe(expected);
  });

  it.each([
    ["15,001", "eur", "de", 'EUR amounts have 2 decimal places: "15,001" has 3.'],
    ["15.001", "usd", "en", 'USD amounts have 2 decimal places: "15.001" has 3.'],
    ["1.5", "jpy", "en", 'JPY amounts have no decimal places: "1.5" has 1.'],
    ["1,5", "jpy", "de", 'JPY amounts have no decimal places: "1,5" has 1.'],
    ["1.2345", "kwd", "en", 'KWD amounts have 3 decimal places: "1.2345" has 4.'],
    ["-15", "usd", "en", "Must not be negative."],
    ["", "usd", "en", "Enter an amount."],
    ["abc", "usd", "en", '"abc" is not an amount: use digits, e.g. 15.00.'],
    ["1e3", "usd", "en", '"1e3" is not an amount: use digits, e.g. 15.00.'],
    ["1.2.3", "eur", "de", '"1.2.3" is not an amount, e.g. 15,00.'],
    ["1,2,3", "usd", "en", '"1,2,3" is not an amount, e.g. 15.00.'],
    ["1,23.4", "usd", "en", '"1,23.4" is not an amount, e.g. 15.00.'],
    ["$15", "usd", "en", '"$15" is not an amount: use digits, e.g. 15.00.'],
    ["15", "xx", "en", '"xx" is not a currency code.'],
    ["99999999999999999", "usd", "en", "Too large an amount."],
  ])("refuses %s %s in %s", (text, currency, locale, message) => {
    expect(atoms(text, currency, locale)).toBe(message);
  });

  it("takes a minus sign only where the field allows one", () => {
    expect(atoms("-15,50", "eur", "de", true)).toBe(-1550);
    expect(atoms("\u221215", "usd", "en", true)).toBe(-1500);
    expect(atoms("-15,50", "eur", "de")).toBe("Must not be negative.");
  });
});

describe("formatAtoms", () => {
  it("writes atoms as the locale writes the amount, exactly", () => {
    expect(formatAtoms(1500, "eur", "de").replace(/\s/g, " ")).toBe("15,00 €");
    expect(formatAtoms(123456, "usd", "en")).toBe("$1,234.56");
    expect(formatAtoms(1500, "jpy", "en")).toBe("¥1,500");
    expect(formatAtoms(1, "kwd", "en").replace(/\s/g, " ")).toBe("KWD 0.001");
    expect(formatAtoms(9007199254740991, "usd", "en")).toBe("$90,071,992,547,409.91");
  });
});
