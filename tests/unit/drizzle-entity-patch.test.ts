import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Column, SQL, Table, and, entityKind, eq, inArray, is, isNull, sql } from "drizzle-orm";
import { alias, PgDialect } from "drizzle-orm/pg-core";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { customers, invoices, priceTypeEnum, subscriptions } from "@/db/schema";

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

  it("writes every other kind of chunk as before: names, aliases, tables and their aliases, subqueries, lists, enums, placeholders, nested inline SQL", () => {
    const payer = alias(customers, "payer");
    const recent = sql`select ${customers.id} from ${customers} where ${customers.accountId} = ${"acct_1"}`;
    const build = () =>
      dialect.sqlToQuery(
        sql`select ${sql.identifier("weird\"name")}, ${payer.email}, ${sql`${customers.name}`.as("who")} from ${customers} join ${payer} on ${payer.id} = ${customers.id} where ${customers.id} in ${["a", "b"]} and ${customers.id} in (${recent}) and ${sql`${customers.name} = ${"it's"}`.inlineParams()} and ${priceTypeEnum} is not null and ${customers.email} = ${sql.placeholder("email")} -- ${7}`,
      );
    const query = build();
    expect(query.sql).toBe(
      'select "weird""name", "payer"."email", "who" from "customers" join "payer" on "payer"."id" = "customers"."id" where "customers"."id" in ($1, $2) and "customers"."id" in (select "customers"."id" from "customers" where "customers"."account_id" = $3) and "customers"."name" = \'it\'\'s\' and "price_type" is not null and "customers"."email" = $4 -- $5',
    );
    expect(query.params).toEqual(["a", "b", "acct_1", sql.placeholder("email"), 7]);
    expect(query.typings).toEqual(["none", "none", "none", "none", "none"]);
    // A second build of the same query (the kinds and a column's quoted name now come from the caches).
    expect(build()).toEqual(query);
  });

  it("builds the verbs' shapes as before: a whole row locked, an update returning it, an insert, a join with a subquery", () => {
    // Never connected: toSQL() only builds (its answer leaves the typings out).
    const db = drizzle(postgres("postgres://nobody@127.0.0.1:1/none", { max: 1 }));
    const when = new Date("2026-12-04T00:00:00Z");
    const locked = db.select({ id: invoices.id, total: invoices.totalAmountAtom }).from(invoices).where(and(eq(invoices.accountId, "acct_1"), eq(invoices.id, "in_1"))).for("update").toSQL();
    expect(locked).toEqual({
      sql: 'select "id", "total_amount_atom" from "invoices" where ("invoices"."account_id" = $1 and "invoices"."id" = $2) for update',
      params: ["acct_1", "in_1"],
    });
    const updated = db.update(customers).set({ name: "Ada", updated: when }).where(eq(customers.id, "cus_1")).returning({ id: customers.id }).toSQL();
    expect(updated).toEqual({ sql: 'update "customers" set "name" = $1, "updated" = $2 where "customers"."id" = $3 returning "id"', params: ["Ada", when.toISOString(), "cus_1"] });
    const inserted = db.insert(customers).values({ id: "cus_1", accountId: "acct_1", email: "a@example.com", name: null } as never).onConflictDoNothing().returning({ id: customers.id }).toSQL();
    expect(inserted.sql).toMatch(/^insert into "customers" \("id", "account_id", .*\) values \(\$1, \$2, .*\) on conflict do nothing returning "id"$/);
    expect(inserted.params.slice(0, 2)).toEqual(["cus_1", "acct_1"]);
    const live = db.select({ id: subscriptions.id }).from(subscriptions).where(isNull(subscriptions.cancelledAt)).as("live");
    const joined = db.select({ email: customers.email, subscription: live.id }).from(customers).innerJoin(live, eq(live.id, customers.id)).where(inArray(customers.id, ["c1", "c2"])).limit(3).toSQL();
    expect(joined).toEqual({
      sql: 'select "customers"."email", "live"."id" from "customers" inner join (select "id" from "subscriptions" where "subscriptions"."cancelled_at" is null) "live" on "live"."id" = "customers"."id" where "customers"."id" in ($1, $2) limit $3',
      params: ["c1", "c2", 3],
    });
  });

  it("is the patched builder in both of drizzle-orm's builds", () => {
    for (const file of bothBuilds("drizzle-orm/sql/sql")) {
      const source = readFileSync(file, "utf8");
      expect(source, file).toContain('typeof chunk !== "object" && typeof chunk !== "function" && chunk !== void 0');
      expect(source, file).toContain("appendQueryChunks(chunks, config, query)");
    }
  });
});
