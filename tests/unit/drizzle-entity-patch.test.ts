import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Column, SQL, Table, entityKind, is, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { customers } from "@/db/schema";

/**
 * drizzle-orm's `is()` (its `instanceof` across copies of the library) answers from a cache per
 * class and entity kind: patches/drizzle-orm+0.45.4.patch, docs/ARCHITECTURE.md "Patched
 * dependencies". These are the answers the unpatched function gives, asked twice each (the second
 * answer comes from the cache), and a check that the install applied the patch to both builds.
 */
describe("drizzle-orm's is(), patched with a cache per class", () => {
  const column = customers.email;

  it("answers as the prototype walk does, the first time and from the cache", () => {
    for (let ask = 0; ask < 2; ask++) {
      expect(is(column, Column)).toBe(true);
      expect(is(customers, Table)).toBe(true);
      expect(is(sql`select 1`, SQL)).toBe(true);
      expect(is(sql`select 1`, Table)).toBe(false);
      expect(is(column, SQL)).toBe(false);
      expect(is({}, Column)).toBe(false);
      expect(is(null, Column)).toBe(false);
      expect(is("text", SQL)).toBe(false);
    }
  });

  it("recognizes a class of another copy of the library by its entity kind", () => {
    // What a second copy of drizzle-orm looks like: its own class, the same kind.
    class OtherCopySql {
      static readonly [entityKind] = SQL[entityKind];
    }
    class Unrelated {
      static readonly [entityKind] = "Unrelated";
    }
    for (let ask = 0; ask < 2; ask++) {
      expect(is(new OtherCopySql(), SQL)).toBe(true);
      expect(is(new Unrelated(), SQL)).toBe(false);
    }
  });

  it("still refuses a type that is not a drizzle entity, after answers for the same value's class", () => {
    class NotAnEntity {}
    expect(is(sql`select 1`, Table)).toBe(false);
    expect(() => is(sql`select 1`, NotAnEntity as never)).toThrow(/doesn't look like a Drizzle entity/);
  });

  it("is the patched function in both of drizzle-orm's builds", () => {
    const require = createRequire(import.meta.url);
    const cjs = require.resolve("drizzle-orm/entity");
    for (const file of [cjs, cjs.replace(/\.cjs$/, ".js")]) {
      expect(readFileSync(file, "utf8"), file).toContain("kindsByClass");
    }
  });
});
