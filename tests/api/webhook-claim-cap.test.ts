import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimDue } from "@/lib/webhooks/claim";
import { isolatedDatabase } from "../helpers/isolated-database";

/**
 * The claim statement itself (lib/webhooks/claim.ts), raced from many connections at once, as
 * many instances' drivers would: each round puts the endpoint's deliveries back to due, then
 * fires every claimer together. Claims are never completed, so whatever they took together is
 * what would be in flight at once.
 */
const CAP = 6;
const CLAIMERS = 8;
const ROUNDS = 60;

let database: Awaited<ReturnType<typeof isolatedDatabase>>;
let sql: postgres.Sql;
let endpointId: string;

beforeAll(async () => {
  database = await isolatedDatabase("claim_cap");
  const { accountId } = database;
  sql = postgres(database.url, { max: CLAIMERS + 1, onnotice: () => {} });
  endpointId = "we_claim_cap";
  await sql`insert into webhook_endpoints (id, account_id, url, events, secret_ciphertext)
    values (${endpointId}, ${accountId}, 'https://127.0.0.1:9/hook', '{*}', 'unused')`;
  await sql`insert into events (id, account_id, type, aggregate_type, aggregate_id, data, metadata, version, sequence)
    values ('evt_claim_cap', ${accountId}, 'customer.created', 'customer', 'cus_claim_cap', '{}', '{"synthetic": true}', 1, 1)`;
  await sql`insert into event_deliveries (id, account_id, event_id, webhook_endpoint_id, status, due_at)
    select 'del_claim_cap_' || n, ${accountId}, 'evt_claim_cap', ${endpointId}, 'pending', now() - interval '1 second'
    from generate_series(1, 200) n`;
}, 60_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

describe("the delivery claim raced from many connections", () => {
  it("never puts more than an endpoint's cap in flight, and fills it", async () => {
    const db = drizzle(sql);
    const totals: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await sql`update event_deliveries set status = 'pending', attempt_count = 0, due_at = now() - interval '1 second'
        where webhook_endpoint_id = ${endpointId}`;
      const now = new Date();
      const claims = await Promise.all(
        Array.from({ length: CLAIMERS }, () =>
          claimDue(db, { now, leaseUntil: new Date(now.getTime() + 60_000), room: 50, perEndpoint: CAP }),
        ),
      );
      totals.push(claims.reduce((sum, claim) => sum + claim.claimed.length, 0));
      const [row] = await sql<{ inFlight: number }[]>`
        select count(*)::int as "inFlight" from event_deliveries where webhook_endpoint_id = ${endpointId} and status = 'delivering'`;
      expect(row?.inFlight).toBe(totals.at(-1));
    }
    // Every round: exactly the cap, whichever claimer took it.
    expect(totals.filter((total) => total !== CAP)).toEqual([]);
  }, 120_000);
});
