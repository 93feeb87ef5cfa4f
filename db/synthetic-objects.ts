import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import { DAY_MS, realNow } from "@/lib/time";

/**
 * Synthetic objects of one list for benchmarks and checks (bench/lists.ts, the list-totals
 * tests): set-based SQL (INSERT … SELECT generate_series) in batches, through the tables' own
 * count triggers, so the lists' totals are exact at every moment. Statuses follow a plausible mix
 * (most invoices paid, most deliveries delivered); parents (customers of invoices, intents of
 * payments, …) are made alongside, one per ten objects, so a parent filter selects about ten.
 * Deliveries are only ever `delivered` or `failed`: nothing for a running driver to pick up.
 */
export const SYNTHETIC_KINDS = [
  "customers",
  "products",
  "prices",
  "coupons",
  "invoices",
  "subscriptions",
  "payment_intents",
  "payments",
  "refunds",
  "checkout_sessions",
  "event_deliveries",
] as const;
export type SyntheticKind = (typeof SYNTHETIC_KINDS)[number];

export type ObjectLoadOptions = {
  accountId: string;
  kind: SyntheticKind;
  count: number;
  /** For `event_deliveries`: the endpoint they belong to (an endpoint of the account). */
  endpointId?: string;
  /** Times spread evenly from `from` to `to` (default: the year before now). */
  from?: Date;
  to?: Date;
  batch?: number;
  /** ANALYZE the tables loaded (default), so that the planner knows the account's rows. */
  analyze?: boolean;
};

/** A status drawn from a weighted mix, as SQL over the row number `g`. */
function mix(weights: Record<string, number>, salt = 7919): string {
  const total = Object.values(weights).reduce((a, b) => a + b, 0);
  let running = 0;
  const arms = Object.entries(weights).map(([value, weight]) => {
    running += weight;
    return `when (g * ${salt}) % 1000 < ${Math.round((running / total) * 1000)} then '${value}'`;
  });
  return `(case ${arms.join(" ")} end)`;
}

const sqlArray = (values: readonly string[]) => `array[${values.map((v) => `'${v}'`).join(",")}]`;
/** The synthetic customers' names (fixed words, not input); bench/customer-search.ts searches them. */
export const FIRST_NAMES = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Margaret", "Dennis", "Frances", "Ken", "Radia", "Linus", "Hedy", "Tim", "Annie", "John", "Katherine", "Niklaus", "Sophie", "Guido", "Mary", "Bjarne", "Jean", "Leslie", "Evelyn", "Tony", "Joan", "Brian", "Karen", "Claude", "Lynn", "Marvin", "Ida", "Seymour", "Carol", "Butler", "Adele", "Robin", "Shafi", "Ivan", "Lois", "Peter", "Ruth", "Fernando", "Elaine", "Douglas", "Dana", "Whitfield", "Irene", "Herbert", "Susan", "Charles", "Judith", "Vint", "Hal", "Kathleen", "Gordon", "Betty", "Stephen", "Rosalind", "Larry", "Nancy", "Bob", "Anita"] as const;
export const SURNAME_ROOTS = ["Love", "Hop", "Tur", "Dijk", "Knu", "Rit", "Ham", "Lam", "Hoa", "Bab", "Kay", "Back", "Wirth", "Mc", "Rob", "Cor", "Sher", "Gold", "Stroust", "Per", "Kern", "Ald", "Lis", "Sha", "Engel", "Hart", "Mins", "Pap", "Bern", "Sut", "Stall", "Wil"] as const;
export const SURNAME_ENDINGS = ["lace", "per", "ing", "stra", "th", "chie", "ilton", "port", "re", "bage", "son", "us", "ford", "arthy", "erts", "bato", "wood", "berg", "rup", "lman", "ighan", "en", "kov", "mir", "bart", "mann", "ky", "ert", "ers", "herland", "ard", "kes"] as const;
const SYNTHETIC_FIRST_NAMES = sqlArray(FIRST_NAMES);
const SYNTHETIC_SURNAME_ROOTS = sqlArray(SURNAME_ROOTS);
const SYNTHETIC_SURNAME_ENDINGS = sqlArray(SURNAME_ENDINGS);

/** The INSERT of rows `low … high` of a kind (see Rows). */
type Kind = {
  /** The kind of the parent each row names (made first, one per ten rows). */
  parent?: SyntheticKind;
  insert: (sql: postgres.Sql, rows: Rows) => postgres.PendingQuery<postgres.Row[]>;
};

/** Rows `low … high` of `n`; `idOf(prefix) || g` is row g's id, `parentIdOf(prefix) || p` its parent's. */
type Rows = {
  accountId: string;
  low: number;
  high: number;
  n: number;
  from: number;
  to: number;
  idOf: (prefix: string) => string;
  parentIdOf: (prefix: string) => string;
  endpointId?: string;
};

// Row g's creation time (ms), and its parent's index (g mod n/10), as SQL fragments over `g`.
const series = (sql: postgres.Sql, r: Rows) =>
  sql`(select g, ${r.from}::bigint + floor((g - 1 + random() * 0.999) * ${r.to - r.from}::numeric / ${r.n})::bigint as ms,
        (g - 1) % greatest(1, ${Math.floor(r.n / 10)}) + 1 as p
       from generate_series(${r.low}::bigint, ${r.high}::bigint) as g) as s`;

const at = "to_timestamp(ms / 1000.0)";

const KINDS: Record<SyntheticKind, Kind> = {
  customers: {
    // Names a search meets in life: 64 first names × 1,024 surnames (root + ending, "Love" +
    // "lace"), a surname every 1,024th row (a multiplicative hash of g), so ~1 in 1,000 customers
    // and spread over the table; emails keep the `c<g>` prefix (bench/lists.ts searches it) and
    // one of 997 domains (`mail<n>.example`).
    insert: (sql, r) => sql`insert into customers (id, account_id, email, name, created, updated)
      select ${r.idOf("cus_")} || lpad(g::text, 10, '0'), ${r.accountId}, 'c' || g || '.' || lower(surname) || '@mail' || (g % 997) || '.example',
             first || ' ' || surname, ${sql.unsafe(at)}, ${sql.unsafe(at)}
      from ${series(sql, r)}, lateral (select (g * 2654435761) % 1024 as k) as h, lateral (select
        (${sql.unsafe(SYNTHETIC_FIRST_NAMES)})[(1 + (g / 1024) % 64)::int] as first,
        (${sql.unsafe(SYNTHETIC_SURNAME_ROOTS)})[(1 + k % 32)::int] || (${sql.unsafe(SYNTHETIC_SURNAME_ENDINGS)})[(1 + k / 32)::int] as surname) as n`,
  },
  products: {
    insert: (sql, r) => sql`insert into products (id, account_id, name, active, created, updated)
      select ${r.idOf("prod_")} || lpad(g::text, 10, '0'), ${r.accountId}, 'Product ' || g, ${sql.unsafe(mix({ true: 85, false: 15 }))}::boolean, ${sql.unsafe(at)}, ${sql.unsafe(at)}
      from ${series(sql, r)}`,
  },
  prices: {
    parent: "products",
    insert: (sql, r) => sql`insert into prices (id, account_id, product_id, currency, unit_amount_atom, type, recurring_interval, recurring_interval_count, active, created, updated)
      select ${r.idOf("price_")} || lpad(g::text, 10, '0'), ${r.accountId}, ${r.parentIdOf("prod_")} || lpad(p::text, 10, '0'), 'usd', 1000 + g % 9000,
             t::price_type, case when t = 'recurring' then 'month'::recurring_interval end, case when t = 'recurring' then 1 end,
             ${sql.unsafe(mix({ true: 80, false: 20 }, 104729))}::boolean, ${sql.unsafe(at)}, ${sql.unsafe(at)}
      from ${series(sql, r)}, lateral (select ${sql.unsafe(mix({ recurring: 70, one_time: 30 }))} as t) as pt`,
  },
  coupons: {
    insert: (sql, r) => sql`insert into coupons (id, account_id, duration, percent_off_bps, created, updated)
      select ${r.idOf("cpn_")} || lpad(g::text, 10, '0'), ${r.accountId}, 'once', 1000, ${sql.unsafe(at)}, ${sql.unsafe(at)}
      from ${series(sql, r)}`,
  },
  invoices: {
    parent: "customers",
    insert: (sql, r) => sql`insert into invoices (id, account_id, customer_id, status, currency, total_amount_atom, created, updated)
      select ${r.idOf("in_")} || lpad(g::text, 10, '0'), ${r.accountId}, ${r.parentIdOf("cus_")} || lpad(p::text, 10, '0'),
             ${sql.unsafe(mix({ paid: 70, open: 15, draft: 5, void: 5, uncollectible: 5 }))}::invoice_status, 'usd', 1000 + g % 9000, ${sql.unsafe(at)}, ${sql.unsafe(at)}
      from ${series(sql, r)}`,
  },
  subscriptions: {
    parent: "customers",
    // List rows without items: their periods end far ahead, so the clock never finds one due for a
    // renewal it could not price.
    insert: (sql, r) => sql`insert into subscriptions (id, account_id, customer_id, status, currency, current_period_start, current_period_end, created, updated)
      select ${r.idOf("sub_")} || lpad(g::text, 10, '0'), ${r.accountId}, ${r.parentIdOf("cus_")} || lpad(p::text, 10, '0'),
             ${sql.unsafe(mix({ active: 60, cancelled: 20, trialing: 10, past_due: 5, paused: 5 }))}::subscription_status, 'usd',
             ${sql.unsafe(at)}, ${sql.unsafe(at)} + interval '100 years', ${sql.unsafe(at)}, ${sql.unsafe(at)}
      from ${series(sql, r)}`,
  },
  payment_intents: {
    parent: "customers",
    insert: (sql, r) => sql`insert into payment_intents (id, account_id, customer_id, amount_atom, currency, status, created, updated)
      select ${r.idOf("pi_")} || lpad(g::text, 10, '0'), ${r.accountId}, ${r.parentIdOf("cus_")} || lpad(p::text, 10, '0'), 1000 + g % 9000, 'usd',
             ${sql.unsafe(mix({ succeeded: 75, requires_payment_method: 10, canceled: 10, requires_capture: 5 }))}::payment_intent_status, ${sql.unsafe(at)}, ${sql.unsafe(at)}
      from ${series(sql, r)}`,
  },
  payments: {
    parent: "payment_intents",
    insert: (sql, r) => sql`insert into payments (id, account_id, payment_intent_id, amount_atom, currency, status, payment_method, created, updated)
      select ${r.idOf("py_")} || lpad(g::text, 10, '0'), ${r.accountId}, ${r.parentIdOf("pi_")} || lpad(p::text, 10, '0'), 1000 + g % 9000, 'usd',
             ${sql.unsafe(mix({ succeeded: 85, failed: 10, refunded: 5 }))}::payment_status, 'pm_card_visa', ${sql.unsafe(at)}, ${sql.unsafe(at)}
      from ${series(sql, r)}`,
  },
  refunds: {
    parent: "payments",
    insert: (sql, r) => sql`insert into refunds (id, account_id, payment_id, amount_atom, currency, status, created, updated)
      select ${r.idOf("re_")} || lpad(g::text, 10, '0'), ${r.accountId}, ${r.parentIdOf("py_")} || lpad(p::text, 10, '0'), 100, 'usd', 'succeeded', ${sql.unsafe(at)}, ${sql.unsafe(at)}
      from ${series(sql, r)}`,
  },
  checkout_sessions: {
    parent: "customers",
    insert: (sql, r) => sql`insert into checkout_sessions (id, account_id, customer_id, mode, status, currency, line_items, amount_total_atom, success_url, expires_at, created, updated)
      select ${r.idOf("cs_")} || lpad(g::text, 10, '0'), ${r.accountId}, ${r.parentIdOf("cus_")} || lpad(p::text, 10, '0'), 'payment',
             ${sql.unsafe(mix({ complete: 60, expired: 38, open: 2 }))}::checkout_status, 'usd', '[]'::jsonb, 1000,
             'https://example.com/done', ${sql.unsafe(at)} + interval '1 day', ${sql.unsafe(at)}, ${sql.unsafe(at)}
      from ${series(sql, r)}`,
  },
  event_deliveries: {
    insert: (sql, r) => sql`
      with made as (
        insert into events (id, account_id, type, aggregate_type, aggregate_id, data, metadata, version, sequence, created, actor_type)
        select ${r.idOf("evt_")} || lpad(g::text, 10, '0'), ${r.accountId}, 'customer.updated', 'customer', ${r.idOf("cus_")} || lpad(g::text, 10, '0'),
               -- Filler state, marked so the contract checks leave it out (tests/helpers/event-check.ts).
               '{}'::jsonb, '{"synthetic": true}'::jsonb, 1, 1, ${sql.unsafe(at)}, 'system'
        from ${series(sql, r)}
        returning id, created
      ), counted as (
        insert into event_counts (account_id, dimension, value, day, shard, count)
        select ${r.accountId}, d.dimension, d.value, (created at time zone 'UTC')::date, 0, count(*)
        from made cross join (values ('all', ''), ('aggregate_type', 'customer'), ('type', 'customer.updated')) as d(dimension, value)
        group by 1, 2, 3, 4
        on conflict (account_id, dimension, value, day, shard) do update set count = event_counts.count + excluded.count
      )
      insert into event_deliveries (id, account_id, event_id, webhook_endpoint_id, status, attempt_count, created, updated)
      select 'ed_' || substr(id, 5), ${r.accountId}, id, ${r.endpointId ?? null},
             (case when ('x' || substr(md5(id), 1, 4))::bit(16)::int % 100 < 92 then 'delivered' else 'failed' end)::delivery_status, 1, created, created
      from made`,
  },
};

/** Inserts `count` synthetic objects of one kind (and their parents) into an existing account. */
export async function loadSyntheticObjects(sql: postgres.Sql, options: ObjectLoadOptions): Promise<number> {
  const environment = /^acc_([a-z]+)_/.exec(options.accountId)?.[1];
  if (!environment) throw new Error(`Not an account id: ${options.accountId}`);
  const [account] = await sql`select id from accounts where id = ${options.accountId}`;
  if (!account) throw new Error(`No such account: ${options.accountId}`);
  if (options.kind === "event_deliveries" && !options.endpointId) throw new Error("Deliveries need an endpoint (endpointId).");
  const to = (options.to ?? realNow()).getTime();
  const from = (options.from ?? new Date(to - 365 * DAY_MS)).getTime();
  const base = { accountId: options.accountId, environment, from, to, endpointId: options.endpointId, batch: options.batch ?? 50_000 };
  const loaded = new Set<string>();
  await insertKind(sql, options.kind, options.count, { ...base, loaded });
  if (options.kind === "event_deliveries") loaded.add("events").add("event_counts");
  // The tables' names are the kinds' (fixed identifiers, not input).
  if (options.analyze !== false) await sql.unsafe(`analyze ${[...loaded].join(", ")}`);
  return options.count;
}

/**
 * Inserts n rows of a kind, after its parents (one per ten rows, recursively); returns how this
 * load's ids are made, so that its children can name their parent.
 */
async function insertKind(
  sql: postgres.Sql,
  name: SyntheticKind,
  n: number,
  base: { accountId: string; environment: string; from: number; to: number; endpointId?: string; batch: number; loaded: Set<string> },
): Promise<(prefix: string) => string> {
  const kind = KINDS[name];
  base.loaded.add(name);
  const parentIdOf = kind.parent ? await insertKind(sql, kind.parent, Math.max(1, Math.floor(n / 10)), base) : () => "";
  const tag = randomBytes(4).toString("hex");
  const idOf = (prefix: string) => `${prefix}${base.environment}_ld${tag}`;
  for (let low = 1; low <= n; low += base.batch) {
    await kind.insert(sql, { ...base, idOf, parentIdOf, low, high: Math.min(n, low + base.batch - 1), n });
  }
  return idOf;
}
