import { describe, expect, it } from "vitest";
import { CURRENCY_EXPONENTS, isoExponent } from "@/lib/currencies";
import { currencyExponent, formatAtoms, parseAmount } from "@/lib/money";
import { Currency } from "@/lib/schemas";

/* The ISO 4217 table the project owns (lib/currencies.ts) and what reads it: validation, parsing, formatting. */

describe("the currency table", () => {
  it.each([
    ["usd", 2], ["eur", 2], ["jpy", 0], ["krw", 0], ["huf", 2], ["idr", 2], ["cop", 2], ["iqd", 3],
    ["kwd", 3], ["bhd", 3], ["omr", 3], ["tnd", 3], ["clf", 4], ["uyw", 4], ["isk", 0], ["xof", 0], ["lbp", 2], ["pkr", 2],
  ])("%s has ISO's exponent %i, in any case", (code, exponent) => {
    expect(isoExponent(code)).toBe(exponent);
    expect(isoExponent(` ${code.toUpperCase()} `)).toBe(exponent);
    expect(currencyExponent(code)).toBe(exponent);
  });

  it.each(["zzz", "xxx", "xts", "xau", "xdr", "ang", "hrk", "abc", "us", "usdx", "constructor", "__proto__"])("does not list %s", (code) => {
    expect(isoExponent(code)).toBeNull();
    expect(currencyExponent(code)).toBeNull();
  });

  it("holds lowercase three-letter codes with an exponent of 0 to 4, each one the runtime can format", () => {
    const entries = Object.entries(CURRENCY_EXPONENTS);
    expect(entries.length).toBeGreaterThan(150);
    for (const [code, exponent] of entries) {
      expect(code).toMatch(/^[a-z]{3}$/);
      expect([0, 2, 3, 4]).toContain(exponent);
      expect(() => formatAtoms(1, code, "en")).not.toThrow();
    }
  });
});

describe("validation: the Currency schema", () => {
  it("accepts a listed code in any case and keeps it lowercase", () => {
    expect(Currency.parse("HUF")).toBe("huf");
    expect(Currency.parse("iqd")).toBe("iqd");
  });

  it.each(["zzz", "XXX", "xau"])("refuses %s with one message naming it", (code) => {
    const result = Currency.safeParse(code);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([`'${code}' is not an ISO 4217 currency code (usd, eur, jpy, …).`]);
  });

  it("refuses what is not three letters with the format's message alone", () => {
    expect(Currency.safeParse("us").error?.issues.map((issue) => issue.message)).toEqual(["Must be a three-letter ISO 4217 currency code."]);
  });
});

describe("formatting and parsing follow the table, not the runtime's ICU", () => {
  it.each([
    [1500, "usd", "$15.00"],
    [1500, "jpy", "¥1,500"],
    [150_000, "huf", "HUF 1,500.00"],
    [150_000, "idr", "IDR 1,500.00"],
    [150_000, "cop", "COP 1,500.00"],
    [1500, "iqd", "IQD 1.500"],
    [1500, "kwd", "KWD 1.500"],
    [12_345, "clf", "CLF 1.2345"],
    [-5, "usd", "-$0.05"],
  ])("%i atoms of %s print as %s", (atoms, currency, printed) => {
    expect(formatAtoms(atoms, currency, "en").replace(/\u00a0/g, " ")).toBe(printed);
  });

  it("prints a code the table does not list as raw atoms", () => {
    expect(formatAtoms(1500, "zzz", "en")).toBe("1500 ZZZ (atoms)");
  });

  it("parses typed amounts with the table's decimals", () => {
    expect(parseAmount("1.5", "iqd", "en")).toEqual({ ok: true, atoms: 1500 });
    expect(parseAmount("15.00", "huf", "en")).toEqual({ ok: true, atoms: 1500 });
    expect(parseAmount("15.5", "jpy", "en")).toMatchObject({ ok: false });
    expect(parseAmount("15", "zzz", "en")).toMatchObject({ ok: false, message: expect.stringMatching(/not a currency code/) });
  });
});
