-- Generated from db/list-declarations.ts by db/list-triggers.ts (npm run db:list-triggers): do not edit.
-- The list-count triggers and totals of every list but the events' (docs/ARCHITECTURE.md, "What a list shows").
DO $do$
declare
  l record;
begin
  -- Writers wait until the migration commits, so no change falls between a recount and its
  -- triggers; one statement takes every lock, not one table after another while writers hold others.
  lock table "api_tokens", "coupons", "webhook_endpoints", "customers", "products", "prices", "invoices", "subscriptions", "payment_intents", "payments", "refunds", "checkout_sessions", "event_deliveries" in share row exclusive mode;
  for l in select * from (values
    ('api_tokens', 'api_tokens', $v$"api_tokens"."account_id"$v$, $v$("api_tokens"."created" at time zone 'UTC')::date$v$, $v$true$v$, $v$array['']$v$, false),
    ('coupons', 'coupons', $v$"coupons"."account_id"$v$, $v$("coupons"."created" at time zone 'UTC')::date$v$, $v$"coupons"."deleted_at" is null$v$, $v$array['']$v$, true),
    ('webhook_endpoints', 'webhook_endpoints', $v$"webhook_endpoints"."account_id"$v$, $v$("webhook_endpoints"."created" at time zone 'UTC')::date$v$, $v$"webhook_endpoints"."deleted_at" is null$v$, $v$array['']$v$, true),
    ('customers', 'customers', $v$"customers"."account_id"$v$, $v$("customers"."created" at time zone 'UTC')::date$v$, $v$"customers"."deleted_at" is null$v$, $v$array['']$v$, true),
    ('products', 'products', $v$"products"."account_id"$v$, $v$("products"."created" at time zone 'UTC')::date$v$, $v$"products"."deleted_at" is null$v$, $v$array['', 'active=' || "products"."active"]$v$, true),
    ('prices', 'prices', $v$"prices"."account_id"$v$, $v$("prices"."created" at time zone 'UTC')::date$v$, $v$"prices"."deleted_at" is null$v$, $v$array['', 'active=' || "prices"."active", 'type=' || "prices"."type", 'active=' || "prices"."active" || '&type=' || "prices"."type"]$v$, true),
    ('invoices', 'invoices', $v$"invoices"."account_id"$v$, $v$("invoices"."created" at time zone 'UTC')::date$v$, $v$true$v$, $v$array['', 'status=' || "invoices"."status"]$v$, true),
    ('subscriptions', 'subscriptions', $v$"subscriptions"."account_id"$v$, $v$("subscriptions"."created" at time zone 'UTC')::date$v$, $v$true$v$, $v$array['', 'status=' || "subscriptions"."status"]$v$, true),
    ('payment_intents', 'payment_intents', $v$"payment_intents"."account_id"$v$, $v$("payment_intents"."created" at time zone 'UTC')::date$v$, $v$true$v$, $v$array['', 'status=' || "payment_intents"."status"]$v$, true),
    ('payments', 'payments', $v$"payments"."account_id"$v$, $v$("payments"."created" at time zone 'UTC')::date$v$, $v$true$v$, $v$array['']$v$, false),
    ('refunds', 'refunds', $v$"refunds"."account_id"$v$, $v$("refunds"."created" at time zone 'UTC')::date$v$, $v$true$v$, $v$array['']$v$, false),
    ('checkout_sessions', 'checkout_sessions', $v$"checkout_sessions"."account_id"$v$, $v$("checkout_sessions"."created" at time zone 'UTC')::date$v$, $v$"checkout_sessions"."deleted_at" is null$v$, $v$array['', 'status=' || "checkout_sessions"."status"]$v$, true),
    ('event_deliveries', 'event_deliveries', $v$"event_deliveries"."webhook_endpoint_id"$v$, $v$("event_deliveries"."created" at time zone 'UTC')::date$v$, $v$true$v$, $v$array['', 'status=' || "event_deliveries"."status"]$v$, true)
  ) as t(list, tbl, scope, day, shown, keys, moves)
  loop
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
  end loop;
end
$do$;
