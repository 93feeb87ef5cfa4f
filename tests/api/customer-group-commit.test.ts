import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { getDb } from "@/db/client";
import { countDay } from "@/db/list-totals";
import { EVENT_COUNT_SHARDS } from "@/lib/events/counts";
import { newId } from "@/lib/ids";
import { rowsOf } from "@/lib/rows";
import { api, apiRoot, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { eventually, Receiver } from "../helpers/receiver";
import { startApp, type RunningApp } from "../helpers/server";

/*
 * Group commit of customer creations (docs/ARCHITECTURE.md, "Group commit of changes"): concurrent
 * `POST /api/customers` of one account share one transaction, and each request still answers as it
 * would alone, only after the commit that holds it. An app of this file's own, logging at debug,
 * shows the groups it committed and rolled back.
 */

let app: RunningApp;
let receiver: Receiver;
const apps: RunningApp[] = [];
beforeAll(async () => {
  receiver = await Receiver.start();
  app = await startApp({ DATABASE_URL: inject("databaseUrl"), LOG_LEVEL: "debug" });
});
afterAll(async () => {
  for (const started of [app, ...apps]) await started?.stop();
  await receiver?.close();
});

/** The app's log entries since `from` (an offset into its output). */
function logSince(from: number): { msg?: string; changes?: number }[] {
  return app
    .output()
    .slice(from)
    .split("\n")
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as { msg?: string; changes?: number }];
      } catch {
        return [];
      }
    });
}

/** The sizes of the groups the app committed since `from`, and how many it rolled back. */
function groupsSince(from: number): { committed: number[]; rolledBack: number } {
  const entries = logSince(from);
  return {
    committed: entries.flatMap((entry) => (entry.msg === "change group committed" && typeof entry.changes === "number" ? [entry.changes] : [])),
    rolledBack: entries.filter((entry) => entry.msg === "change group rolled back; its changes run one by one").length,
  };
}

/** How many creations the app queued for a group since `from`. */
function queuedSince(from: number): number {
  return logSince(from).filter((entry) => entry.msg === "change queued for its lane's next group").length;
}

/**
 * Locks the account's `all` event counter rows of today (made first, at count 0, so that none is
 * missing) in a transaction of the test's own: every creation's event waits on one of them.
 */
async function holdEventCounters(accountId: string) {
  const connection = postgres(inject("databaseUrl"), { max: 2, onnotice: () => {} });
  const reserved = await connection.reserve();
  const day = countDay(new Date());
  await reserved`begin`;
  await reserved`insert into event_counts (account_id, dimension, value, day, shard, count)
    select ${accountId}, 'all', '', ${day}::date, shard, 0 from generate_series(0, ${EVENT_COUNT_SHARDS - 1}) as shard
    on conflict do nothing`;
  await reserved`select 1 from event_counts where account_id = ${accountId} and dimension = 'all' and day = ${day}::date for update`;
  const { pid } = (await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!;
  let released = false;
  return {
    /** The sessions that wait on this one, directly or behind another waiter for the same row. */
    blocked: async () => {
      const waiting = await connection<{ pid: number; blockers: number[] }[]>`
        select pid, pg_blocking_pids(pid) as blockers from pg_stat_activity where wait_event_type = 'Lock'`;
      const behind = new Set([pid]);
      for (let grown = true; grown; ) {
        grown = false;
        for (const row of waiting) {
          if (!behind.has(row.pid) && row.blockers.some((blocker) => behind.has(blocker))) grown = Boolean(behind.add(row.pid));
        }
      }
      return behind.size - 1;
    },
    release: async () => {
      if (released) return;
      released = true;
      await reserved`rollback`;
      reserved.release();
      await connection.end();
    },
  };
}

/** Per customer of the account: its `customer.created` events (sequence each) and the deliveries of each. */
async function eventsOfCustomers(accountId: string) {
  const db = await getDb();
  return rowsOf<{ id: string; email: string; sequences: number[]; deliveries: number[] }>(
    await db.execute(sql`
      select c.id, c.email,
        coalesce(array_agg(e.sequence order by e.sequence) filter (where e.id is not null), '{}') as sequences,
        coalesce(array_agg((select count(*)::int from event_deliveries d where d.event_id = e.id) order by e.sequence) filter (where e.id is not null), '{}') as deliveries
      from customers c
      left join events e on e.account_id = c.account_id and e.aggregate_id = c.id and e.type = 'customer.created'
      where c.account_id = ${accountId}
      group by c.id, c.email`),
  );
}

describe("group commit of customer creations", () => {
  it("answers each of 200 concurrent creations as it would alone: a customer, its one event and its deliveries each; a refused one alone refused", { timeout: 180_000 }, async () => {
    const merchant = await newMerchant();
    const client = api(merchant.secret.token, apiRoot(app.baseUrl));
    for (let i = 0; i < 2; i++) {
      const endpoint = await client.post(`/${merchant.accountId}/webhook-endpoints`, { url: receiver.url, events: ["customer.created"] });
      expect(endpoint.status).toBe(201);
    }
    const from = app.output().length;
    // Which creations share a group depends on when they arrive, so the test arranges it: it holds
    // the account's event counter rows for today, which every creation's event adds to, until all
    // 200 wait in the app. The lane's 4 writers then wait on the lock, each with one creation, and
    // everything else queues; released, the queue goes in groups of up to 32, and each of the 3
    // creations naming a tax rate that does not exist is in a group with good ones, which are then
    // written one by one.
    const locker = await holdEventCounters(merchant.accountId);
    const send = (sent: { body: Json; refused: boolean }) => client.post("/customers", sent.body).then((answer) => ({ ...sent, answer }));
    const goodBody = (i: number) => ({ body: { email: `grouped-${i}@example.com`, name: `Grouped ${i}` }, refused: false });
    const refusedBody = (i: number) => ({ body: { email: `refused-${i}@example.com`, default_tax_rate: newId("taxRate") }, refused: true });
    const sent: ReturnType<typeof send>[] = [];
    try {
      sent.push(...Array.from({ length: 100 }, (_, i) => send(goodBody(i))));
      await eventually(async () => ({ blocked: await locker.blocked(), queued: queuedSince(from) }), (now) => now.blocked === 4 && now.queued === 96, 60_000);
      sent.push(...Array.from({ length: 100 }, (_, i) => send([20, 50, 80].includes(i) ? refusedBody(100 + i) : goodBody(100 + i))));
      await eventually(async () => queuedSince(from), (queued) => queued === 196, 60_000);
    } finally {
      await locker.release();
    }
    const answers = await Promise.all(sent);

    const created = new Map<string, string>();
    for (const { body, refused, answer } of answers) {
      if (refused) {
        expect(answer.status, JSON.stringify(answer.body)).toBeGreaterThanOrEqual(400);
        expect(answer.status).toBeLessThan(500);
        expect(answer.body).toMatchObject({ request_id: expect.any(String) });
      } else {
        expect(answer.status, JSON.stringify(answer.body)).toBe(201);
        expect(answer.body).toMatchObject({ object: "customer", email: (body as { email: string }).email });
        created.set(answer.body.id as string, (body as { email: string }).email);
      }
    }
    expect(created.size).toBe(197);

    // What the database holds: exactly the answered customers, each with one event (sequence 1) and
    // a delivery per endpoint; nothing of the refused ones.
    const stored = await eventsOfCustomers(merchant.accountId);
    expect(new Map(stored.map((row) => [row.id, row.email]))).toEqual(created);
    for (const row of stored) {
      expect(row.sequences, row.id).toEqual([1]);
      expect(row.deliveries, row.id).toEqual([2]);
    }
    // The list's total counts each once.
    expect((await client.get("/customers?limit=1")).body).toMatchObject({ total: 197 });
    // Every event reaches both endpoints.
    await receiver.waitFor(394, 120_000);

    // The creations shared transactions, and a group with a refused creation was rolled back.
    const groups = groupsSince(from);
    expect(Math.max(...groups.committed)).toBeGreaterThan(1);
    expect(groups.committed.reduce((sum, size) => sum + size, 0)).toBeLessThan(197);
    expect(groups.rolledBack).toBeGreaterThan(0);
  });

  it("loses no acknowledged creation and leaves no customer without its event when killed -9 amid groups", { timeout: 180_000 }, async () => {
    const merchant = await newMerchant();
    const victim = await startApp({ DATABASE_URL: inject("databaseUrl") });
    apps.push(victim);
    const client = api(merchant.secret.token, apiRoot(victim.baseUrl));
    const endpoint = await client.post(`/${merchant.accountId}/webhook-endpoints`, { url: receiver.url, events: ["customer.created"] });
    expect(endpoint.status).toBe(201);

    const acknowledged = new Set<string>();
    let next = 0;
    const total = 3000;
    // 32 requests in flight at a time: enough to make groups of several creations.
    const lanes = Array.from({ length: 32 }, async () => {
      while (next < total) {
        const answer = await client.post("/customers", { email: `crash-${next++}@example.com` }).catch(() => null);
        if (!answer) return;
        if (answer.status === 201) acknowledged.add(answer.body.id as string);
      }
    });
    // Kill once some creations were acknowledged, while others are in flight.
    while (acknowledged.size < 300 && next < total) await new Promise((resolve) => setTimeout(resolve, 20));
    await victim.kill();
    await Promise.all(lanes);
    expect(next).toBeLessThan(total);

    const stored = await eventsOfCustomers(merchant.accountId);
    const storedIds = new Set(stored.map((row) => row.id));
    for (const id of acknowledged) expect(storedIds.has(id), id).toBe(true);
    // A customer committed and not yet answered may exist; none without its event and delivery.
    for (const row of stored) {
      expect(row.sequences, row.id).toEqual([1]);
      expect(row.deliveries, row.id).toEqual([1]);
    }
    expect((await api(merchant.secret.token, apiRoot(app.baseUrl)).get("/customers?limit=1")).body).toMatchObject({ total: stored.length });
  });
});
