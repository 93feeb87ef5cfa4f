import { getTableName, sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { LIST_DECLARATIONS, type ListDeclaration } from "./list-declarations";

/**
 * The first line of every migration written by listTriggersMigration: the latest such migration is
 * the one whose triggers the database runs (tests/unit/list-triggers.test.ts compares it).
 */
export const GENERATED_MARKER = "-- Generated from db/list-declarations.ts by db/list-triggers.ts (npm run db:list-triggers): do not edit.";

const BREAKPOINT = "--> statement-breakpoint";
const dialect = new PgDialect();

/** SQL text with no parameter: a declaration's conditions are written into the trigger's code. */
function textOf(fragment: SQL): string {
  const { sql: text, params } = dialect.sqlToQuery(fragment);
  if (params.length > 0) throw new Error(`A list declaration's SQL must have no parameters: ${text} (${JSON.stringify(params)})`);
  return text;
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * The keys a row counts under, as a SQL array over the row's columns: every combination of the
 * declared keys (their names sorted, as countKey joins a request's), the empty one first.
 */
function keysArray(declaration: ListDeclaration): string {
  const names = Object.keys(declaration.keys).sort();
  const combinations = Array.from({ length: 2 ** names.length }, (_, mask) => {
    const parts = names
      .filter((_, bit) => mask & (2 ** bit))
      .map((name, index) => sql`${sql.raw(literal(`${index === 0 ? "" : "&"}${name}=`))} || ${declaration.keys[name]!}`);
    return parts.length === 0 ? "''" : textOf(sql.join(parts, sql` || `));
  });
  return `array[${combinations.join(", ")}]`;
}

/** The parts of a list's statements its declaration gives, as SQL text. */
function partsOf(list: string, declaration: ListDeclaration) {
  const keys = keysArray(declaration);
  const shown = declaration.shown ? textOf(declaration.shown) : "true";
  const table = quoted(getTableName(declaration.table));
  return {
    table,
    name: literal(list),
    scope: textOf(sql`${declaration.scope}`),
    day: `(${textOf(sql`${declaration.table.created}`)} at time zone 'UTC')::date`,
    keys,
    shown,
    // Transition tables take the table's name, so the declaration's qualified columns resolve.
    rowsOf: (transition: string) => `from ${transition} as ${table}, unnest(${keys}) as key where ${shown}`,
  };
}

/**
 * The code of list `list`'s trigger function (pg_proc.prosrc): each statement appends its net
 * change to the rows `shown` per scope, key and UTC day.
 */
export function triggerFunctionBody(list: string, declaration: ListDeclaration): string {
  const { name, scope, day, rowsOf } = partsOf(list, declaration);
  return `
begin
  if tg_op = 'INSERT' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select ${scope}, ${name}, key, ${day}, count(*)::int
    ${rowsOf("new_rows")} group by 1, 3, 4;
  elsif tg_op = 'DELETE' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select ${scope}, ${name}, key, ${day}, -count(*)::int
    ${rowsOf("old_rows")} group by 1, 3, 4;
  else
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select scope_id, ${name}, key, day, sum(delta)::int from (
      select ${scope} as scope_id, key, ${day} as day, 1 as delta
      ${rowsOf("new_rows")}
      union all
      select ${scope}, key, ${day}, -1
      ${rowsOf("old_rows")}
    ) as changes
    group by 1, 3, 4 having sum(delta) <> 0;
  end if;
  return null;
end `;
}

/** The statements that (re)create one list's trigger function and triggers, and recount its totals. */
function listStatements(list: string, declaration: ListDeclaration): string[] {
  const { table, name, scope, day, keys, shown } = partsOf(list, declaration);
  const fn = quoted(`count_${list}`);
  // An update can move a row between totals only by changing what `shown` or a key reads.
  const moves = declaration.shown !== undefined || Object.keys(declaration.keys).length > 0;
  const trigger = (op: string) => quoted(`count_${list}_${op}`);
  return [
    ...["insert", "delete", "update"].map((op) => `drop trigger if exists ${trigger(op)} on ${table}`),
    `create or replace function ${fn}() returns trigger language plpgsql as $body$${triggerFunctionBody(list, declaration)}$body$`,
    `create trigger ${trigger("insert")} after insert on ${table} referencing new table as new_rows for each statement execute function ${fn}()`,
    `create trigger ${trigger("delete")} after delete on ${table} referencing old table as old_rows for each statement execute function ${fn}()`,
    // (A trigger with transition tables cannot name columns: it runs after every update, and writes
    // only when a row moved between totals.)
    ...(moves
      ? [`create trigger ${trigger("update")} after update on ${table} referencing old table as old_rows new table as new_rows for each statement execute function ${fn}()`]
      : []),
    // The totals start over from what the table holds, as the new declaration counts it.
    `delete from list_count_deltas where list = ${name}`,
    `delete from list_counts where list = ${name}`,
    `insert into list_counts (scope_id, list, key, day, count)
select ${scope}, ${name}, key, ${day}, count(*)
from ${table}, unnest(${keys}) as key where ${shown} group by 1, 3, 4`,
  ];
}

/**
 * A migration that makes the list-count triggers (migration 0020's mechanism: each statement on a
 * counted table appends its net change per scope, list, key and UTC day to list_count_deltas) and
 * the totals they keep those of `declarations`.
 */
export function listTriggersMigration(declarations: Record<string, ListDeclaration> = LIST_DECLARATIONS): string {
  const tables = [...new Set(Object.values(declarations).map((declaration) => quoted(getTableName(declaration.table))))];
  const statements = [
    // Writers wait until the migration commits, so no change falls between a recount and its
    // triggers; one statement takes every lock, not one table after another while writers hold others.
    `lock table ${tables.join(", ")} in share row exclusive mode`,
    ...Object.entries(declarations).flatMap(([list, declaration]) => listStatements(list, declaration)),
  ];
  return `${GENERATED_MARKER}\n${statements.map((statement) => `${statement};`).join(`${BREAKPOINT}\n`)}\n`;
}
