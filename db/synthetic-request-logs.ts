import { sql } from "drizzle-orm";
import type { Executor } from "./client";

/**
 * Synthetic request log rows for benchmarks (`npm run logs:load`, `npm run bench:request-log`):
 * `rows` requests of one account spread evenly over the last `days` days, one INSERT … SELECT per
 * day into that day's partition (which must exist: lib/request-recorder/partitions.ts). A plausible
 * mix: mostly GETs and 2xx, a few 4xx/5xx with their error codes, three tokens, an idempotency key
 * on a third of the POSTs. Ids are `req_<env>_` + the millisecond (13 digits) + the row number (16
 * digits): valid request ids that sort in creation order among themselves. Ends with ANALYZE
 * (autovacuum is off on the benchmark machine).
 */
const ROOT = "/api";

export const SYNTHETIC_OPERATIONS = [
  { operation: "getCustomer", method: "GET", path: `${ROOT}/customers/cus_prod_` },
  { operation: "listCustomers", method: "GET", path: `${ROOT}/customers` },
  { operation: "listInvoices", method: "GET", path: `${ROOT}/invoices` },
  { operation: "getInvoice", method: "GET", path: `${ROOT}/invoices/in_prod_` },
  { operation: "listEvents", method: "GET", path: `${ROOT}/events` },
  { operation: "createCustomer", method: "POST", path: `${ROOT}/customers` },
  { operation: "createPaymentIntent", method: "POST", path: `${ROOT}/payment-intents` },
  { operation: "finalizeInvoice", method: "POST", path: `${ROOT}/invoices/in_prod_` },
  { operation: "deleteCustomer", method: "DELETE", path: `${ROOT}/customers/cus_prod_` },
] as const;

/** Status codes by weight (out of 1000): 2xx mostly, some 4xx, a few 5xx. */
const STATUSES: [number, number, string | null][] = [
  [200, 800, null],
  [201, 120, null],
  [400, 25, "bad_request"],
  [401, 10, "unauthorized"],
  [404, 25, "not_found"],
  [409, 5, "conflict"],
  [422, 12, "unprocessable_content"],
  [500, 3, "internal_server_error"],
];

export async function loadSyntheticRequestLogs(
  db: Executor,
  input: { accountId: string; tokenIds: readonly string[]; rows: number; days: number; environment: string; now: Date },
  progress: (message: string) => void = () => {},
): Promise<void> {
  const perDay = Math.ceil(input.rows / input.days);
  const spanMs = input.days * 86_400_000;
  const start = input.now.getTime() - spanMs;
  const step = spanMs / input.rows;
  const operations = sql.raw(
    `(values ${SYNTHETIC_OPERATIONS.map((op, i) => `(${i}, '${op.operation}', '${op.method}', '${op.path}')`).join(", ")}) as op(n, operation, method, path)`,
  );
  let cumulative = 0;
  const statuses = sql.raw(
    `(values ${STATUSES.map(([status, weight, code]) => {
      const from = cumulative;
      cumulative += weight;
      return `(${status}, ${from}, ${cumulative}, ${code ? `'${code}'` : "null"})`;
    }).join(", ")}) as st(status, lo, hi, code)`,
  );
  const tokens = `array[${input.tokenIds.map((id) => `'${id}'`).join(", ")}]::text[]`;
  for (let day = 0; day < input.days; day++) {
    const first = day * perDay;
    const last = Math.min(input.rows, first + perDay) - 1;
    if (last < first) break;
    await db.execute(sql`
      insert into request_logs (id, created, account_id, livemode, token_id, method, operation_id, path, query, status,
        status_class, error_code, duration_ms, client_address, user_agent, idempotency_key, idempotent_replayed, request_headers)
      select
        ${`req_${input.environment}_`} || lpad((${start}::bigint + floor(g * ${step}::float8))::bigint::text, 13, '0') || lpad(g::text, 16, '0'),
        to_timestamp((${start}::bigint + floor(g * ${step}::float8)) / 1000.0),
        ${input.accountId}, true,
        (${sql.raw(tokens)})[1 + (g % ${input.tokenIds.length})],
        op.method, op.operation,
        case when op.path like '%\\_' then op.path || lpad((g % 100000)::text, 29, '0') else op.path end,
        case when op.method = 'GET' and g % 7 = 0 then 'limit=10' else null end,
        st.status, st.status / 100, st.code,
        (1 + (g * 7919) % 120)::int,
        '10.0.' || (g % 250) || '.' || (g % 200), 'bench-client/1.0',
        case when op.method = 'POST' and g % 3 = 0 then 'idem-' || g else null end,
        false, '{}'::jsonb
      from generate_series(${first}::bigint, ${last}::bigint) as g
      join ${operations} on op.n = (g * 31 + g / 7) % ${SYNTHETIC_OPERATIONS.length}
      join ${statuses} on (g * 613) % 1000 >= st.lo and (g * 613) % 1000 < st.hi`);
    progress(`day ${day + 1}/${input.days}: ${last + 1} rows`);
  }
  await db.execute(sql`analyze request_logs`);
}
