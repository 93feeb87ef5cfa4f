-- Generated from db/list-declarations.ts by db/list-triggers.ts (npm run db:list-triggers): do not edit.
lock table "api_tokens", "coupons", "webhook_endpoints", "customers", "products", "prices", "invoices", "subscriptions", "payment_intents", "payments", "refunds", "checkout_sessions", "event_deliveries" in share row exclusive mode;--> statement-breakpoint
drop trigger if exists "count_api_tokens_insert" on "api_tokens";--> statement-breakpoint
drop trigger if exists "count_api_tokens_delete" on "api_tokens";--> statement-breakpoint
drop trigger if exists "count_api_tokens_update" on "api_tokens";--> statement-breakpoint
create or replace function "count_api_tokens"() returns trigger language plpgsql as $body$
begin
  if tg_op = 'INSERT' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "api_tokens"."account_id", 'api_tokens', key, ("api_tokens"."created" at time zone 'UTC')::date, count(*)::int
    from new_rows as "api_tokens", unnest(array['']) as key where true group by 1, 3, 4;
  elsif tg_op = 'DELETE' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "api_tokens"."account_id", 'api_tokens', key, ("api_tokens"."created" at time zone 'UTC')::date, -count(*)::int
    from old_rows as "api_tokens", unnest(array['']) as key where true group by 1, 3, 4;
  else
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select scope_id, 'api_tokens', key, day, sum(delta)::int from (
      select "api_tokens"."account_id" as scope_id, key, ("api_tokens"."created" at time zone 'UTC')::date as day, 1 as delta
      from new_rows as "api_tokens", unnest(array['']) as key where true
      union all
      select "api_tokens"."account_id", key, ("api_tokens"."created" at time zone 'UTC')::date, -1
      from old_rows as "api_tokens", unnest(array['']) as key where true
    ) as changes
    group by 1, 3, 4 having sum(delta) <> 0;
  end if;
  return null;
end $body$;--> statement-breakpoint
create trigger "count_api_tokens_insert" after insert on "api_tokens" referencing new table as new_rows for each statement execute function "count_api_tokens"();--> statement-breakpoint
create trigger "count_api_tokens_delete" after delete on "api_tokens" referencing old table as old_rows for each statement execute function "count_api_tokens"();--> statement-breakpoint
delete from list_count_deltas where list = 'api_tokens';--> statement-breakpoint
delete from list_counts where list = 'api_tokens';--> statement-breakpoint
insert into list_counts (scope_id, list, key, day, count)
select "api_tokens"."account_id", 'api_tokens', key, ("api_tokens"."created" at time zone 'UTC')::date, count(*)
from "api_tokens", unnest(array['']) as key where true group by 1, 3, 4;--> statement-breakpoint
drop trigger if exists "count_coupons_insert" on "coupons";--> statement-breakpoint
drop trigger if exists "count_coupons_delete" on "coupons";--> statement-breakpoint
drop trigger if exists "count_coupons_update" on "coupons";--> statement-breakpoint
create or replace function "count_coupons"() returns trigger language plpgsql as $body$
begin
  if tg_op = 'INSERT' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "coupons"."account_id", 'coupons', key, ("coupons"."created" at time zone 'UTC')::date, count(*)::int
    from new_rows as "coupons", unnest(array['']) as key where "coupons"."deleted_at" is null group by 1, 3, 4;
  elsif tg_op = 'DELETE' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "coupons"."account_id", 'coupons', key, ("coupons"."created" at time zone 'UTC')::date, -count(*)::int
    from old_rows as "coupons", unnest(array['']) as key where "coupons"."deleted_at" is null group by 1, 3, 4;
  else
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select scope_id, 'coupons', key, day, sum(delta)::int from (
      select "coupons"."account_id" as scope_id, key, ("coupons"."created" at time zone 'UTC')::date as day, 1 as delta
      from new_rows as "coupons", unnest(array['']) as key where "coupons"."deleted_at" is null
      union all
      select "coupons"."account_id", key, ("coupons"."created" at time zone 'UTC')::date, -1
      from old_rows as "coupons", unnest(array['']) as key where "coupons"."deleted_at" is null
    ) as changes
    group by 1, 3, 4 having sum(delta) <> 0;
  end if;
  return null;
end $body$;--> statement-breakpoint
create trigger "count_coupons_insert" after insert on "coupons" referencing new table as new_rows for each statement execute function "count_coupons"();--> statement-breakpoint
create trigger "count_coupons_delete" after delete on "coupons" referencing old table as old_rows for each statement execute function "count_coupons"();--> statement-breakpoint
create trigger "count_coupons_update" after update on "coupons" referencing old table as old_rows new table as new_rows for each statement execute function "count_coupons"();--> statement-breakpoint
delete from list_count_deltas where list = 'coupons';--> statement-breakpoint
delete from list_counts where list = 'coupons';--> statement-breakpoint
insert into list_counts (scope_id, list, key, day, count)
select "coupons"."account_id", 'coupons', key, ("coupons"."created" at time zone 'UTC')::date, count(*)
from "coupons", unnest(array['']) as key where "coupons"."deleted_at" is null group by 1, 3, 4;--> statement-breakpoint
drop trigger if exists "count_webhook_endpoints_insert" on "webhook_endpoints";--> statement-breakpoint
drop trigger if exists "count_webhook_endpoints_delete" on "webhook_endpoints";--> statement-breakpoint
drop trigger if exists "count_webhook_endpoints_update" on "webhook_endpoints";--> statement-breakpoint
create or replace function "count_webhook_endpoints"() returns trigger language plpgsql as $body$
begin
  if tg_op = 'INSERT' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "webhook_endpoints"."account_id", 'webhook_endpoints', key, ("webhook_endpoints"."created" at time zone 'UTC')::date, count(*)::int
    from new_rows as "webhook_endpoints", unnest(array['']) as key where "webhook_endpoints"."deleted_at" is null group by 1, 3, 4;
  elsif tg_op = 'DELETE' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "webhook_endpoints"."account_id", 'webhook_endpoints', key, ("webhook_endpoints"."created" at time zone 'UTC')::date, -count(*)::int
    from old_rows as "webhook_endpoints", unnest(array['']) as key where "webhook_endpoints"."deleted_at" is null group by 1, 3, 4;
  else
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select scope_id, 'webhook_endpoints', key, day, sum(delta)::int from (
      select "webhook_endpoints"."account_id" as scope_id, key, ("webhook_endpoints"."created" at time zone 'UTC')::date as day, 1 as delta
      from new_rows as "webhook_endpoints", unnest(array['']) as key where "webhook_endpoints"."deleted_at" is null
      union all
      select "webhook_endpoints"."account_id", key, ("webhook_endpoints"."created" at time zone 'UTC')::date, -1
      from old_rows as "webhook_endpoints", unnest(array['']) as key where "webhook_endpoints"."deleted_at" is null
    ) as changes
    group by 1, 3, 4 having sum(delta) <> 0;
  end if;
  return null;
end $body$;--> statement-breakpoint
create trigger "count_webhook_endpoints_insert" after insert on "webhook_endpoints" referencing new table as new_rows for each statement execute function "count_webhook_endpoints"();--> statement-breakpoint
create trigger "count_webhook_endpoints_delete" after delete on "webhook_endpoints" referencing old table as old_rows for each statement execute function "count_webhook_endpoints"();--> statement-breakpoint
create trigger "count_webhook_endpoints_update" after update on "webhook_endpoints" referencing old table as old_rows new table as new_rows for each statement execute function "count_webhook_endpoints"();--> statement-breakpoint
delete from list_count_deltas where list = 'webhook_endpoints';--> statement-breakpoint
delete from list_counts where list = 'webhook_endpoints';--> statement-breakpoint
insert into list_counts (scope_id, list, key, day, count)
select "webhook_endpoints"."account_id", 'webhook_endpoints', key, ("webhook_endpoints"."created" at time zone 'UTC')::date, count(*)
from "webhook_endpoints", unnest(array['']) as key where "webhook_endpoints"."deleted_at" is null group by 1, 3, 4;--> statement-breakpoint
drop trigger if exists "count_customers_insert" on "customers";--> statement-breakpoint
drop trigger if exists "count_customers_delete" on "customers";--> statement-breakpoint
drop trigger if exists "count_customers_update" on "customers";--> statement-breakpoint
create or replace function "count_customers"() returns trigger language plpgsql as $body$
begin
  if tg_op = 'INSERT' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "customers"."account_id", 'customers', key, ("customers"."created" at time zone 'UTC')::date, count(*)::int
    from new_rows as "customers", unnest(array['']) as key where "customers"."deleted_at" is null group by 1, 3, 4;
  elsif tg_op = 'DELETE' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "customers"."account_id", 'customers', key, ("customers"."created" at time zone 'UTC')::date, -count(*)::int
    from old_rows as "customers", unnest(array['']) as key where "customers"."deleted_at" is null group by 1, 3, 4;
  else
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select scope_id, 'customers', key, day, sum(delta)::int from (
      select "customers"."account_id" as scope_id, key, ("customers"."created" at time zone 'UTC')::date as day, 1 as delta
      from new_rows as "customers", unnest(array['']) as key where "customers"."deleted_at" is null
      union all
      select "customers"."account_id", key, ("customers"."created" at time zone 'UTC')::date, -1
      from old_rows as "customers", unnest(array['']) as key where "customers"."deleted_at" is null
    ) as changes
    group by 1, 3, 4 having sum(delta) <> 0;
  end if;
  return null;
end $body$;--> statement-breakpoint
create trigger "count_customers_insert" after insert on "customers" referencing new table as new_rows for each statement execute function "count_customers"();--> statement-breakpoint
create trigger "count_customers_delete" after delete on "customers" referencing old table as old_rows for each statement execute function "count_customers"();--> statement-breakpoint
create trigger "count_customers_update" after update on "customers" referencing old table as old_rows new table as new_rows for each statement execute function "count_customers"();--> statement-breakpoint
delete from list_count_deltas where list = 'customers';--> statement-breakpoint
delete from list_counts where list = 'customers';--> statement-breakpoint
insert into list_counts (scope_id, list, key, day, count)
select "customers"."account_id", 'customers', key, ("customers"."created" at time zone 'UTC')::date, count(*)
from "customers", unnest(array['']) as key where "customers"."deleted_at" is null group by 1, 3, 4;--> statement-breakpoint
drop trigger if exists "count_products_insert" on "products";--> statement-breakpoint
drop trigger if exists "count_products_delete" on "products";--> statement-breakpoint
drop trigger if exists "count_products_update" on "products";--> statement-breakpoint
create or replace function "count_products"() returns trigger language plpgsql as $body$
begin
  if tg_op = 'INSERT' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "products"."account_id", 'products', key, ("products"."created" at time zone 'UTC')::date, count(*)::int
    from new_rows as "products", unnest(array['', 'active=' || "products"."active"]) as key where "products"."deleted_at" is null group by 1, 3, 4;
  elsif tg_op = 'DELETE' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "products"."account_id", 'products', key, ("products"."created" at time zone 'UTC')::date, -count(*)::int
    from old_rows as "products", unnest(array['', 'active=' || "products"."active"]) as key where "products"."deleted_at" is null group by 1, 3, 4;
  else
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select scope_id, 'products', key, day, sum(delta)::int from (
      select "products"."account_id" as scope_id, key, ("products"."created" at time zone 'UTC')::date as day, 1 as delta
      from new_rows as "products", unnest(array['', 'active=' || "products"."active"]) as key where "products"."deleted_at" is null
      union all
      select "products"."account_id", key, ("products"."created" at time zone 'UTC')::date, -1
      from old_rows as "products", unnest(array['', 'active=' || "products"."active"]) as key where "products"."deleted_at" is null
    ) as changes
    group by 1, 3, 4 having sum(delta) <> 0;
  end if;
  return null;
end $body$;--> statement-breakpoint
create trigger "count_products_insert" after insert on "products" referencing new table as new_rows for each statement execute function "count_products"();--> statement-breakpoint
create trigger "count_products_delete" after delete on "products" referencing old table as old_rows for each statement execute function "count_products"();--> statement-breakpoint
create trigger "count_products_update" after update on "products" referencing old table as old_rows new table as new_rows for each statement execute function "count_products"();--> statement-breakpoint
delete from list_count_deltas where list = 'products';--> statement-breakpoint
delete from list_counts where list = 'products';--> statement-breakpoint
insert into list_counts (scope_id, list, key, day, count)
select "products"."account_id", 'products', key, ("products"."created" at time zone 'UTC')::date, count(*)
from "products", unnest(array['', 'active=' || "products"."active"]) as key where "products"."deleted_at" is null group by 1, 3, 4;--> statement-breakpoint
drop trigger if exists "count_prices_insert" on "prices";--> statement-breakpoint
drop trigger if exists "count_prices_delete" on "prices";--> statement-breakpoint
drop trigger if exists "count_prices_update" on "prices";--> statement-breakpoint
create or replace function "count_prices"() returns trigger language plpgsql as $body$
begin
  if tg_op = 'INSERT' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "prices"."account_id", 'prices', key, ("prices"."created" at time zone 'UTC')::date, count(*)::int
    from new_rows as "prices", unnest(array['', 'active=' || "prices"."active", 'type=' || "prices"."type", 'active=' || "prices"."active" || '&type=' || "prices"."type"]) as key where "prices"."deleted_at" is null group by 1, 3, 4;
  elsif tg_op = 'DELETE' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "prices"."account_id", 'prices', key, ("prices"."created" at time zone 'UTC')::date, -count(*)::int
    from old_rows as "prices", unnest(array['', 'active=' || "prices"."active", 'type=' || "prices"."type", 'active=' || "prices"."active" || '&type=' || "prices"."type"]) as key where "prices"."deleted_at" is null group by 1, 3, 4;
  else
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select scope_id, 'prices', key, day, sum(delta)::int from (
      select "prices"."account_id" as scope_id, key, ("prices"."created" at time zone 'UTC')::date as day, 1 as delta
      from new_rows as "prices", unnest(array['', 'active=' || "prices"."active", 'type=' || "prices"."type", 'active=' || "prices"."active" || '&type=' || "prices"."type"]) as key where "prices"."deleted_at" is null
      union all
      select "prices"."account_id", key, ("prices"."created" at time zone 'UTC')::date, -1
      from old_rows as "prices", unnest(array['', 'active=' || "prices"."active", 'type=' || "prices"."type", 'active=' || "prices"."active" || '&type=' || "prices"."type"]) as key where "prices"."deleted_at" is null
    ) as changes
    group by 1, 3, 4 having sum(delta) <> 0;
  end if;
  return null;
end $body$;--> statement-breakpoint
create trigger "count_prices_insert" after insert on "prices" referencing new table as new_rows for each statement execute function "count_prices"();--> statement-breakpoint
create trigger "count_prices_delete" after delete on "prices" referencing old table as old_rows for each statement execute function "count_prices"();--> statement-breakpoint
create trigger "count_prices_update" after update on "prices" referencing old table as old_rows new table as new_rows for each statement execute function "count_prices"();--> statement-breakpoint
delete from list_count_deltas where list = 'prices';--> statement-breakpoint
delete from list_counts where list = 'prices';--> statement-breakpoint
insert into list_counts (scope_id, list, key, day, count)
select "prices"."account_id", 'prices', key, ("prices"."created" at time zone 'UTC')::date, count(*)
from "prices", unnest(array['', 'active=' || "prices"."active", 'type=' || "prices"."type", 'active=' || "prices"."active" || '&type=' || "prices"."type"]) as key where "prices"."deleted_at" is null group by 1, 3, 4;--> statement-breakpoint
drop trigger if exists "count_invoices_insert" on "invoices";--> statement-breakpoint
drop trigger if exists "count_invoices_delete" on "invoices";--> statement-breakpoint
drop trigger if exists "count_invoices_update" on "invoices";--> statement-breakpoint
create or replace function "count_invoices"() returns trigger language plpgsql as $body$
begin
  if tg_op = 'INSERT' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "invoices"."account_id", 'invoices', key, ("invoices"."created" at time zone 'UTC')::date, count(*)::int
    from new_rows as "invoices", unnest(array['', 'status=' || "invoices"."status"]) as key where true group by 1, 3, 4;
  elsif tg_op = 'DELETE' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "invoices"."account_id", 'invoices', key, ("invoices"."created" at time zone 'UTC')::date, -count(*)::int
    from old_rows as "invoices", unnest(array['', 'status=' || "invoices"."status"]) as key where true group by 1, 3, 4;
  else
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select scope_id, 'invoices', key, day, sum(delta)::int from (
      select "invoices"."account_id" as scope_id, key, ("invoices"."created" at time zone 'UTC')::date as day, 1 as delta
      from new_rows as "invoices", unnest(array['', 'status=' || "invoices"."status"]) as key where true
      union all
      select "invoices"."account_id", key, ("invoices"."created" at time zone 'UTC')::date, -1
      from old_rows as "invoices", unnest(array['', 'status=' || "invoices"."status"]) as key where true
    ) as changes
    group by 1, 3, 4 having sum(delta) <> 0;
  end if;
  return null;
end $body$;--> statement-breakpoint
create trigger "count_invoices_insert" after insert on "invoices" referencing new table as new_rows for each statement execute function "count_invoices"();--> statement-breakpoint
create trigger "count_invoices_delete" after delete on "invoices" referencing old table as old_rows for each statement execute function "count_invoices"();--> statement-breakpoint
create trigger "count_invoices_update" after update on "invoices" referencing old table as old_rows new table as new_rows for each statement execute function "count_invoices"();--> statement-breakpoint
delete from list_count_deltas where list = 'invoices';--> statement-breakpoint
delete from list_counts where list = 'invoices';--> statement-breakpoint
insert into list_counts (scope_id, list, key, day, count)
select "invoices"."account_id", 'invoices', key, ("invoices"."created" at time zone 'UTC')::date, count(*)
from "invoices", unnest(array['', 'status=' || "invoices"."status"]) as key where true group by 1, 3, 4;--> statement-breakpoint
drop trigger if exists "count_subscriptions_insert" on "subscriptions";--> statement-breakpoint
drop trigger if exists "count_subscriptions_delete" on "subscriptions";--> statement-breakpoint
drop trigger if exists "count_subscriptions_update" on "subscriptions";--> statement-breakpoint
create or replace function "count_subscriptions"() returns trigger language plpgsql as $body$
begin
  if tg_op = 'INSERT' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "subscriptions"."account_id", 'subscriptions', key, ("subscriptions"."created" at time zone 'UTC')::date, count(*)::int
    from new_rows as "subscriptions", unnest(array['', 'status=' || "subscriptions"."status"]) as key where true group by 1, 3, 4;
  elsif tg_op = 'DELETE' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "subscriptions"."account_id", 'subscriptions', key, ("subscriptions"."created" at time zone 'UTC')::date, -count(*)::int
    from old_rows as "subscriptions", unnest(array['', 'status=' || "subscriptions"."status"]) as key where true group by 1, 3, 4;
  else
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select scope_id, 'subscriptions', key, day, sum(delta)::int from (
      select "subscriptions"."account_id" as scope_id, key, ("subscriptions"."created" at time zone 'UTC')::date as day, 1 as delta
      from new_rows as "subscriptions", unnest(array['', 'status=' || "subscriptions"."status"]) as key where true
      union all
      select "subscriptions"."account_id", key, ("subscriptions"."created" at time zone 'UTC')::date, -1
      from old_rows as "subscriptions", unnest(array['', 'status=' || "subscriptions"."status"]) as key where true
    ) as changes
    group by 1, 3, 4 having sum(delta) <> 0;
  end if;
  return null;
end $body$;--> statement-breakpoint
create trigger "count_subscriptions_insert" after insert on "subscriptions" referencing new table as new_rows for each statement execute function "count_subscriptions"();--> statement-breakpoint
create trigger "count_subscriptions_delete" after delete on "subscriptions" referencing old table as old_rows for each statement execute function "count_subscriptions"();--> statement-breakpoint
create trigger "count_subscriptions_update" after update on "subscriptions" referencing old table as old_rows new table as new_rows for each statement execute function "count_subscriptions"();--> statement-breakpoint
delete from list_count_deltas where list = 'subscriptions';--> statement-breakpoint
delete from list_counts where list = 'subscriptions';--> statement-breakpoint
insert into list_counts (scope_id, list, key, day, count)
select "subscriptions"."account_id", 'subscriptions', key, ("subscriptions"."created" at time zone 'UTC')::date, count(*)
from "subscriptions", unnest(array['', 'status=' || "subscriptions"."status"]) as key where true group by 1, 3, 4;--> statement-breakpoint
drop trigger if exists "count_payment_intents_insert" on "payment_intents";--> statement-breakpoint
drop trigger if exists "count_payment_intents_delete" on "payment_intents";--> statement-breakpoint
drop trigger if exists "count_payment_intents_update" on "payment_intents";--> statement-breakpoint
create or replace function "count_payment_intents"() returns trigger language plpgsql as $body$
begin
  if tg_op = 'INSERT' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "payment_intents"."account_id", 'payment_intents', key, ("payment_intents"."created" at time zone 'UTC')::date, count(*)::int
    from new_rows as "payment_intents", unnest(array['', 'status=' || "payment_intents"."status"]) as key where true group by 1, 3, 4;
  elsif tg_op = 'DELETE' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "payment_intents"."account_id", 'payment_intents', key, ("payment_intents"."created" at time zone 'UTC')::date, -count(*)::int
    from old_rows as "payment_intents", unnest(array['', 'status=' || "payment_intents"."status"]) as key where true group by 1, 3, 4;
  else
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select scope_id, 'payment_intents', key, day, sum(delta)::int from (
      select "payment_intents"."account_id" as scope_id, key, ("payment_intents"."created" at time zone 'UTC')::date as day, 1 as delta
      from new_rows as "payment_intents", unnest(array['', 'status=' || "payment_intents"."status"]) as key where true
      union all
      select "payment_intents"."account_id", key, ("payment_intents"."created" at time zone 'UTC')::date, -1
      from old_rows as "payment_intents", unnest(array['', 'status=' || "payment_intents"."status"]) as key where true
    ) as changes
    group by 1, 3, 4 having sum(delta) <> 0;
  end if;
  return null;
end $body$;--> statement-breakpoint
create trigger "count_payment_intents_insert" after insert on "payment_intents" referencing new table as new_rows for each statement execute function "count_payment_intents"();--> statement-breakpoint
create trigger "count_payment_intents_delete" after delete on "payment_intents" referencing old table as old_rows for each statement execute function "count_payment_intents"();--> statement-breakpoint
create trigger "count_payment_intents_update" after update on "payment_intents" referencing old table as old_rows new table as new_rows for each statement execute function "count_payment_intents"();--> statement-breakpoint
delete from list_count_deltas where list = 'payment_intents';--> statement-breakpoint
delete from list_counts where list = 'payment_intents';--> statement-breakpoint
insert into list_counts (scope_id, list, key, day, count)
select "payment_intents"."account_id", 'payment_intents', key, ("payment_intents"."created" at time zone 'UTC')::date, count(*)
from "payment_intents", unnest(array['', 'status=' || "payment_intents"."status"]) as key where true group by 1, 3, 4;--> statement-breakpoint
drop trigger if exists "count_payments_insert" on "payments";--> statement-breakpoint
drop trigger if exists "count_payments_delete" on "payments";--> statement-breakpoint
drop trigger if exists "count_payments_update" on "payments";--> statement-breakpoint
create or replace function "count_payments"() returns trigger language plpgsql as $body$
begin
  if tg_op = 'INSERT' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "payments"."account_id", 'payments', key, ("payments"."created" at time zone 'UTC')::date, count(*)::int
    from new_rows as "payments", unnest(array['']) as key where true group by 1, 3, 4;
  elsif tg_op = 'DELETE' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "payments"."account_id", 'payments', key, ("payments"."created" at time zone 'UTC')::date, -count(*)::int
    from old_rows as "payments", unnest(array['']) as key where true group by 1, 3, 4;
  else
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select scope_id, 'payments', key, day, sum(delta)::int from (
      select "payments"."account_id" as scope_id, key, ("payments"."created" at time zone 'UTC')::date as day, 1 as delta
      from new_rows as "payments", unnest(array['']) as key where true
      union all
      select "payments"."account_id", key, ("payments"."created" at time zone 'UTC')::date, -1
      from old_rows as "payments", unnest(array['']) as key where true
    ) as changes
    group by 1, 3, 4 having sum(delta) <> 0;
  end if;
  return null;
end $body$;--> statement-breakpoint
create trigger "count_payments_insert" after insert on "payments" referencing new table as new_rows for each statement execute function "count_payments"();--> statement-breakpoint
create trigger "count_payments_delete" after delete on "payments" referencing old table as old_rows for each statement execute function "count_payments"();--> statement-breakpoint
delete from list_count_deltas where list = 'payments';--> statement-breakpoint
delete from list_counts where list = 'payments';--> statement-breakpoint
insert into list_counts (scope_id, list, key, day, count)
select "payments"."account_id", 'payments', key, ("payments"."created" at time zone 'UTC')::date, count(*)
from "payments", unnest(array['']) as key where true group by 1, 3, 4;--> statement-breakpoint
drop trigger if exists "count_refunds_insert" on "refunds";--> statement-breakpoint
drop trigger if exists "count_refunds_delete" on "refunds";--> statement-breakpoint
drop trigger if exists "count_refunds_update" on "refunds";--> statement-breakpoint
create or replace function "count_refunds"() returns trigger language plpgsql as $body$
begin
  if tg_op = 'INSERT' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "refunds"."account_id", 'refunds', key, ("refunds"."created" at time zone 'UTC')::date, count(*)::int
    from new_rows as "refunds", unnest(array['']) as key where true group by 1, 3, 4;
  elsif tg_op = 'DELETE' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "refunds"."account_id", 'refunds', key, ("refunds"."created" at time zone 'UTC')::date, -count(*)::int
    from old_rows as "refunds", unnest(array['']) as key where true group by 1, 3, 4;
  else
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select scope_id, 'refunds', key, day, sum(delta)::int from (
      select "refunds"."account_id" as scope_id, key, ("refunds"."created" at time zone 'UTC')::date as day, 1 as delta
      from new_rows as "refunds", unnest(array['']) as key where true
      union all
      select "refunds"."account_id", key, ("refunds"."created" at time zone 'UTC')::date, -1
      from old_rows as "refunds", unnest(array['']) as key where true
    ) as changes
    group by 1, 3, 4 having sum(delta) <> 0;
  end if;
  return null;
end $body$;--> statement-breakpoint
create trigger "count_refunds_insert" after insert on "refunds" referencing new table as new_rows for each statement execute function "count_refunds"();--> statement-breakpoint
create trigger "count_refunds_delete" after delete on "refunds" referencing old table as old_rows for each statement execute function "count_refunds"();--> statement-breakpoint
delete from list_count_deltas where list = 'refunds';--> statement-breakpoint
delete from list_counts where list = 'refunds';--> statement-breakpoint
insert into list_counts (scope_id, list, key, day, count)
select "refunds"."account_id", 'refunds', key, ("refunds"."created" at time zone 'UTC')::date, count(*)
from "refunds", unnest(array['']) as key where true group by 1, 3, 4;--> statement-breakpoint
drop trigger if exists "count_checkout_sessions_insert" on "checkout_sessions";--> statement-breakpoint
drop trigger if exists "count_checkout_sessions_delete" on "checkout_sessions";--> statement-breakpoint
drop trigger if exists "count_checkout_sessions_update" on "checkout_sessions";--> statement-breakpoint
create or replace function "count_checkout_sessions"() returns trigger language plpgsql as $body$
begin
  if tg_op = 'INSERT' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "checkout_sessions"."account_id", 'checkout_sessions', key, ("checkout_sessions"."created" at time zone 'UTC')::date, count(*)::int
    from new_rows as "checkout_sessions", unnest(array['', 'status=' || "checkout_sessions"."status"]) as key where "checkout_sessions"."deleted_at" is null group by 1, 3, 4;
  elsif tg_op = 'DELETE' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "checkout_sessions"."account_id", 'checkout_sessions', key, ("checkout_sessions"."created" at time zone 'UTC')::date, -count(*)::int
    from old_rows as "checkout_sessions", unnest(array['', 'status=' || "checkout_sessions"."status"]) as key where "checkout_sessions"."deleted_at" is null group by 1, 3, 4;
  else
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select scope_id, 'checkout_sessions', key, day, sum(delta)::int from (
      select "checkout_sessions"."account_id" as scope_id, key, ("checkout_sessions"."created" at time zone 'UTC')::date as day, 1 as delta
      from new_rows as "checkout_sessions", unnest(array['', 'status=' || "checkout_sessions"."status"]) as key where "checkout_sessions"."deleted_at" is null
      union all
      select "checkout_sessions"."account_id", key, ("checkout_sessions"."created" at time zone 'UTC')::date, -1
      from old_rows as "checkout_sessions", unnest(array['', 'status=' || "checkout_sessions"."status"]) as key where "checkout_sessions"."deleted_at" is null
    ) as changes
    group by 1, 3, 4 having sum(delta) <> 0;
  end if;
  return null;
end $body$;--> statement-breakpoint
create trigger "count_checkout_sessions_insert" after insert on "checkout_sessions" referencing new table as new_rows for each statement execute function "count_checkout_sessions"();--> statement-breakpoint
create trigger "count_checkout_sessions_delete" after delete on "checkout_sessions" referencing old table as old_rows for each statement execute function "count_checkout_sessions"();--> statement-breakpoint
create trigger "count_checkout_sessions_update" after update on "checkout_sessions" referencing old table as old_rows new table as new_rows for each statement execute function "count_checkout_sessions"();--> statement-breakpoint
delete from list_count_deltas where list = 'checkout_sessions';--> statement-breakpoint
delete from list_counts where list = 'checkout_sessions';--> statement-breakpoint
insert into list_counts (scope_id, list, key, day, count)
select "checkout_sessions"."account_id", 'checkout_sessions', key, ("checkout_sessions"."created" at time zone 'UTC')::date, count(*)
from "checkout_sessions", unnest(array['', 'status=' || "checkout_sessions"."status"]) as key where "checkout_sessions"."deleted_at" is null group by 1, 3, 4;--> statement-breakpoint
drop trigger if exists "count_event_deliveries_insert" on "event_deliveries";--> statement-breakpoint
drop trigger if exists "count_event_deliveries_delete" on "event_deliveries";--> statement-breakpoint
drop trigger if exists "count_event_deliveries_update" on "event_deliveries";--> statement-breakpoint
create or replace function "count_event_deliveries"() returns trigger language plpgsql as $body$
begin
  if tg_op = 'INSERT' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "event_deliveries"."webhook_endpoint_id", 'event_deliveries', key, ("event_deliveries"."created" at time zone 'UTC')::date, count(*)::int
    from new_rows as "event_deliveries", unnest(array['', 'status=' || "event_deliveries"."status"]) as key where true group by 1, 3, 4;
  elsif tg_op = 'DELETE' then
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select "event_deliveries"."webhook_endpoint_id", 'event_deliveries', key, ("event_deliveries"."created" at time zone 'UTC')::date, -count(*)::int
    from old_rows as "event_deliveries", unnest(array['', 'status=' || "event_deliveries"."status"]) as key where true group by 1, 3, 4;
  else
    insert into list_count_deltas (scope_id, list, key, day, delta)
    select scope_id, 'event_deliveries', key, day, sum(delta)::int from (
      select "event_deliveries"."webhook_endpoint_id" as scope_id, key, ("event_deliveries"."created" at time zone 'UTC')::date as day, 1 as delta
      from new_rows as "event_deliveries", unnest(array['', 'status=' || "event_deliveries"."status"]) as key where true
      union all
      select "event_deliveries"."webhook_endpoint_id", key, ("event_deliveries"."created" at time zone 'UTC')::date, -1
      from old_rows as "event_deliveries", unnest(array['', 'status=' || "event_deliveries"."status"]) as key where true
    ) as changes
    group by 1, 3, 4 having sum(delta) <> 0;
  end if;
  return null;
end $body$;--> statement-breakpoint
create trigger "count_event_deliveries_insert" after insert on "event_deliveries" referencing new table as new_rows for each statement execute function "count_event_deliveries"();--> statement-breakpoint
create trigger "count_event_deliveries_delete" after delete on "event_deliveries" referencing old table as old_rows for each statement execute function "count_event_deliveries"();--> statement-breakpoint
create trigger "count_event_deliveries_update" after update on "event_deliveries" referencing old table as old_rows new table as new_rows for each statement execute function "count_event_deliveries"();--> statement-breakpoint
delete from list_count_deltas where list = 'event_deliveries';--> statement-breakpoint
delete from list_counts where list = 'event_deliveries';--> statement-breakpoint
insert into list_counts (scope_id, list, key, day, count)
select "event_deliveries"."webhook_endpoint_id", 'event_deliveries', key, ("event_deliveries"."created" at time zone 'UTC')::date, count(*)
from "event_deliveries", unnest(array['', 'status=' || "event_deliveries"."status"]) as key where true group by 1, 3, 4;
