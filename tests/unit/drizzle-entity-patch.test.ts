import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Column, SQL, Table, entityKind, eq, is, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { customers } from "@/db/schema";

/**
 * drizzle-orm's `is()` (its `instanceof` across copies of the library) answers from a cache per
 * prototype and asked class, and its query builder sends a plain value (a string, a number, null)
 * straight to a parameter: patches/drizzle-orm+0.45.4.patch, docs/ARCHITECTURE.md "Patched
 * dependencies". These are the answers the unpatched functions give, asked twice each (the second
 * answer comes from the cache), and a check that the install applied the patch to both builds.
 */
/** A module's two files in drizzle-orm: the CommonJS build and the ESM one beside it. */
function bothBuilds(subpath: string): string[] {
  const cjs = createRequire(import.meta.url).resolve(subpath);
  return [cjs, cjs.replace(/\.cjs$/, ".js")];
}

describe("drizzle-orm's is(), patched with a cache per prototype", () => {
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
    for (const file of bothBuilds("drizzle-orm/entity")) {
      expect(readFileSync(file, "utf8"), file).toContain("answersByPrototype");
    }
  });
});

describe("drizzle-orm's query builder, patched to send a plain value straight to a parameter", () => {
  const dialect = new PgDialect();

  it("numbers plain values, null among them, as parameters in their order, beside columns and nested SQL", () => {
    const when = new Date("2026-12-03T00:00:00Z");
    const query = dialect.sqlToQuery(
      sql`select ${customers.id} from ${customers} where ${customers.accountId} = ${"acct_1"} and ${sql`${customers.email} is distinct from ${null}`} and ${eq(customers.name, "Ada")} limit ${5} offset ${0} -- ${true} ${when}`,
    );
    expect(query.sql).toBe(
      'select "customers"."id" from "customers" where "customers"."account_id" = $1 and "customers"."email" is distinct from $2 and "customers"."name" = $3 limit $4 offset $5 -- $6 $7',
    );
    expect(query.params).toEqual(["acct_1", null, "Ada", 5, 0, true, when]);
  });

  it("writes plain values inline where the query asks for inline parameters, and leaves an undefined chunk out", () => {
    const query = dialect.sqlToQuery(sql`select ${"it's"}, ${7}, ${null}, ${false}${undefined}`.inlineParams());
    expect(query).toEqual({ sql: "select 'it''s', 7, null, false", params: [] });
  });

  it("is the patched builder in both of drizzle-orm's builds", () => {
    for (const file of bothBuilds("drizzle-orm/sql/sql")) {
      expect(readFileSync(file, "utf8"), file).toContain('typeof chunk !== "object" && typeof chunk !== "function" && chunk !== void 0');
    }
  });
});
