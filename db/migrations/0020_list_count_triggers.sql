-- The totals of every list but the events' (db/list-totals.ts): one statement trigger per
-- counted table appends, in the writing transaction, the net change the statement made to each
-- (scope, list, key, UTC day) to list_count_deltas. The table below is the one definition of what
-- is counted: `scope` whose rows they are, `counted` which rows the list shows, `keys` under which
-- totals a row counts (countedBy in db/page.ts builds the same keys from a request's filters), and
-- `moves` whether an update can move a row between totals. Filters on a parent
-- (customer, product, payment, …) have no key: their totals count the parent's index range.
-- Each function is written out once from the template, so its statements are planned once.
DO $do$
declare
  l record;
begin
  for l in select * from (values
    ('api_tokens',        'account_id',          'true',               $k$array['']$k$,                                             false),
    ('coupons',           'account_id',          'deleted_at is null', $k$array['']$k$,                                             true),
    ('webhook_endpoints', 'account_id',          'deleted_at is null', $k$array['']$k$,                                             true),
    ('customers',         'account_id',          'deleted_at is null', $k$array['']$k$,                                             true),
    ('products',          'account_id',          'deleted_at is null', $k$array['', 'active=' || active]$k$,                        true),
    ('prices',            'account_id',          'deleted_at is null', $k$array['', 'active=' || active, 'type=' || type, 'active=' || active || '&type=' || type]$k$, true),
    ('invoices',          'account_id',          'true',               $k$array['', 'status=' || status]$k$,                        true),
    ('subscriptions',     'account_id',          'true',               $k$array['', 'status=' || status]$k$,                        true),
    ('payment_intents',   'account_id',          'true',               $k$array['', 'status=' || status]$k$,                        true),
    ('payments',          'account_id',          'true',               $k$array['']$k$,                                             false),
    ('refunds',           'account_id',          'true',               $k$array['']$k$,                                             false),
    ('checkout_sessions', 'account_id',          'deleted_at is null', $k$array['', 'status=' || status]$k$,                        true),
    ('event_deliveries',  'webhook_endpoint_id', 'true',               $k$array['', 'status=' || status]$k$,                        true)
  ) as t(list, scope, counted, keys, moves)
  loop
    execute format($f$
      create function %1$I() returns trigger language plpgsql as $body$
      begin
        if tg_op = 'INSERT' then
          insert into list_count_deltas (scope_id, list, key, day, delta)
          select %2$s, %3$L, key, (created at time zone 'UTC')::date, count(*)::int
          from new_rows, unnest(%5$s) as key where %4$s group by 1, 3, 4;
        elsif tg_op = 'DELETE' then
          insert into list_count_deltas (scope_id, list, key, day, delta)
          select %2$s, %3$L, key, (created at time zone 'UTC')::date, -count(*)::int
          from old_rows, unnest(%5$s) as key where %4$s group by 1, 3, 4;
        else
          insert into list_count_deltas (scope_id, list, key, day, delta)
          select scope_id, %3$L, key, day, sum(delta)::int from (
            select %2$s as scope_id, key, (created at time zone 'UTC')::date as day, 1 as delta
            from new_rows, unnest(%5$s) as key where %4$s
            union all
            select %2$s, key, (created at time zone 'UTC')::date, -1
            from old_rows, unnest(%5$s) as key where %4$s
          ) as changes
          group by 1, 3, 4 having sum(delta) <> 0;
        end if;
        return null;
      end $body$$f$, 'count_' || l.list, l.scope, l.list, l.counted, l.keys);

    execute format('create trigger %I after insert on %I referencing new table as new_rows for each statement execute function %I()',
      'count_' || l.list || '_insert', l.list, 'count_' || l.list);
    execute format('create trigger %I after delete on %I referencing old table as old_rows for each statement execute function %I()',
      'count_' || l.list || '_delete', l.list, 'count_' || l.list);
    if l.moves then
      -- (A trigger with transition tables cannot name columns: it runs after every UPDATE, and
      -- writes only when a row moved between totals.)
      execute format('create trigger %I after update on %I referencing old table as old_rows new table as new_rows for each statement execute function %I()',
        'count_' || l.list || '_update', l.list, 'count_' || l.list);
    end if;

    -- What the table holds already.
    execute format($f$
      insert into list_counts (scope_id, list, key, day, count)
      select %2$s, %3$L, key, (created at time zone 'UTC')::date, count(*)
      from %1$I, unnest(%5$s) as key where %4$s group by 1, 3, 4$f$, l.list, l.scope, l.list, l.counted, l.keys);
  end loop;
end
$do$;
