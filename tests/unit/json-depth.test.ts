import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "@/lib/api/limits";
import { assertStorableStrings } from "@/lib/api/validation";
import { ServiceError } from "@/lib/errors";

describe("JSON nesting", () => {
  it("measures arrays and objects, not brackets inside strings", () => {
    expect(nestsDeeperThan('{"a":[1,{"b":2}]}', 3)).toBe(false);
    expect(nestsDeeperThan('{"a":[1,{"b":2}]}', 2)).toBe(true);
    expect(nestsDeeperThan(`{"a":"${"[".repeat(100)}"}`, 1)).toBe(false);
    // An escaped quote does not end the string; an escaped backslash does not escape the quote.
    expect(nestsDeeperThan('{"a":"\\"[[[["}', 1)).toBe(false);
    expect(nestsDeeperThan('{"a":"\\\\",  "b":[[1]]}', 2)).toBe(true);
    expect(nestsDeeperThan(`${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}`, MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan("[".repeat(1_000_000), MAX_JSON_DEPTH)).toBe(true);
  });

  it("checks the strings of a value of any depth without overflowing the stack", () => {
    let value: unknown = "a\u0000b";
    for (let level = 0; level < 20_000; level++) value = level % 2 === 0 ? [value] : { k: value };
    let thrown: unknown;
    try {
      assertStorableStrings({ deep: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ServiceError);
    expect((thrown as ServiceError).category).toBe("validation");
    // Fields are reported in document order.
    expect(() => assertStorableStrings({ a: "\u0000", b: ["ok", "\ud800"] })).toThrow(/^a: .*; b\.1: /);
  });
});
