import { getTableName, sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { LIST_DECLARATIONS, type ListDeclaration } from "./list-declarations";

/**
 * The first line of every migration written by listTriggersMigration: the latest such migration is
 * the one whose triggers the database runs (tests/unit/list-triggers.test.ts compares it).
 */
export const GENERATED_MARKER = "-- Generated from db/list-declarations.ts by db/list-triggers.ts (npm run db:list-triggers): do not edit.";

const dialect = new PgDialect();

/** SQL text with no parameter: a declaration's conditions are written into the trigger's code. */
function textOf(fragment: SQL): string {
  const { sql: text, params } = dialect.sqlToQuery(fragment);
  if (params.length > 0) throw new Error(`A list declaration's SQL must have no parameters: ${text} (${JSON.stringify(params)})`);
  return text;
}

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

/** What a list's trigger is made of, as SQL text: its declaration rendered by drizzle's dialect. */
export type TriggerParts = {
  list: string;
  table: string;
  /** The scope column, qualified by the table's name (which the transition tables take). */
  scope: string;
  day: string;
  /** Which rows count: the declaration's `shown`, or `true`. */
  shown: string;
  /** The keys a row counts under: every combination of the declared keys, as a SQL array. */
  keys: string;
  /** Whether an update can move a row between totals: only by changing what `shown` or a key reads. */
  moves: boolean;
};

export function triggerParts(list: string, declaration: ListDeclaration): TriggerParts {
  return {
    list,
    table: getTableName(declaration.table),
    scope: textOf(sql`${declaration.scope}`),
    day: `(${textOf(sql`${declaration.table.created}`)} at time zone 'UTC')::date`,
    shown: declaration.shown ? textOf(declaration.shown) : "true",
    keys: keysArray(declaration),
    moves: declaration.shown !== undefined || Object.keys(declaration.keys).length > 0,
  };
}

/** A value of the migration's table, dollar-quoted: SQL text goes in as written. */
function dollarQuoted(text: string): string {
  if (text.includes("$v$")) throw new Error(`A list declaration's SQL cannot contain $v$: ${text}`);
  return `$v$${text}$v$`;
}

/**
 * The migration's loop, written once for every list: it replaces each list's trigger function and
 * triggers with those of its row, and recounts the list's totals from what the table holds.
 * (Each function is written out from the template, so its statements are planned once.)
 */
const LOOP = `  loop
    execute format('drop function if exists %I() cascade', 'count_' || l.list);
    execute format($f$
      create function %1$I() returns trigger language plpgsql as $body$
      begin
        if tg_op = 'INSERT' then
          insert into list_count_deltas (scope_id, list, key, day, delta)
          select %2$s, %3$L, key, %4$s, count(*)::int
          from new_rows as %6$I, unnest(%7$s) as key where %5$s group by 1, 3, 4;
        elsif tg_op = 'DELETE' then
          insert into list_count_deltas (scope_id, list, key, day, delta)
          select %2$s, %3$L, key, %4$s, -count(*)::int
          from old_rows as %6$I, unnest(%7$s) as key where %5$s group by 1, 3, 4;
        else
          insert into list_count_deltas (scope_id, list, key, day, delta)
          select scope_id, %3$L, key, day, sum(delta)::int from (
            select %2$s as scope_id, key, %4$s as day, 1 as delta
            from new_rows as %6$I, unnest(%7$s) as key where %5$s
            union all
            select %2$s, key, %4$s, -1
            from old_rows as %6$I, unnest(%7$s) as key where %5$s
          ) as changes
          group by 1, 3, 4 having sum(delta) <> 0;
        end if;
        return null;
      end $body$$f$, 'count_' || l.list, l.scope, l.list, l.day, l.shown, l.tbl, l.keys);

    execute format('create trigger %I after insert on %I referencing new table as new_rows for each statement execute function %I()',
      'count_' || l.list || '_insert', l.tbl, 'count_' || l.list);
    execute format('create trigger %I after delete on %I referencing old table as old_rows for each statement execute function %I()',
      'count_' || l.list || '_delete', l.tbl, 'count_' || l.list);
    if l.moves then
      -- (A trigger with transition tables cannot name columns: it runs after every update, and
      -- writes only when a row moved between totals.)
      execute format('create trigger %I after update on %I referencing old table as old_rows new table as new_rows for each statement execute function %I()',
        'count_' || l.list || '_update', l.tbl, 'count_' || l.list);
    end if;

    -- The totals start over from what the table holds, as the declaration counts it.
    delete from list_count_deltas where list = l.list;
    delete from list_counts where list = l.list;
    execute format($f$
      insert into list_counts (scope_id, list, key, day, count)
      select %1$s, %2$L, key, %3$s, count(*)
      from %5$I, unnest(%6$s) as key where %4$s group by 1, 3, 4$f$, l.scope, l.list, l.day, l.shown, l.tbl, l.keys);
  end loop;`;

/**
 * A migration that makes the list-count triggers (each statement on a counted table appends its
 * net change per scope, list, key and UTC day to list_count_deltas) and the totals they keep those
 * of `declarations`: one table of what each list counts, and the loop that applies it.
 */
export function listTriggersMigration(declarations: Record<string, ListDeclaration> = LIST_DECLARATIONS): string {
  const parts = Object.entries(declarations).map(([list, declaration]) => triggerParts(list, declaration));
  const rows = parts.map(({ list, table, scope, day, shown, keys, moves }) =>
    [literal(list), literal(table), dollarQuoted(scope), dollarQuoted(day), dollarQuoted(shown), dollarQuoted(keys), String(moves)].join(", "),
  );
  const tables = [...new Set(parts.map(({ table }) => `"${table.replaceAll('"', '""')}"`))];
  return `${GENERATED_MARKER}
-- The list-count triggers and totals of every list but the events' (docs/ARCHITECTURE.md, "What a list shows").
DO $do$
declare
  l record;
begin
  -- Writers wait until the migration commits, so no change falls between a recount and its
  -- triggers; one statement takes every lock, not one table after another while writers hold others.
  lock table ${tables.join(", ")} in share row exclusive mode;
  for l in select * from (values
${rows.map((row) => `    (${row})`).join(",\n")}
  ) as t(list, tbl, scope, day, shown, keys, moves)
${LOOP}
end
$do$;
`;
}
