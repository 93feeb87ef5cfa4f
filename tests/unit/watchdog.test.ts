import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_TIMEOUTS, postgresClient } from "@/db/client";
import { ADMIN_DATABASE_URL } from "../helpers/database";
import { TcpProxy } from "../helpers/tcp-proxy";

/*
 * db/watchdog.ts tells a slow database from a gone one. Two pools of the service (db/client.ts, as
 * the API's and the delivery driver's) reach PostgreSQL through a proxy that then holds every byte
 * of the connections opened after their first: the pools' sessions carry on, but the watchdog's
 * probe (a fresh connection with a short deadline) goes unanswered, as on a host too loaded to
 * start a backend in time. A statement that runs longer than the suspicion threshold is then cut
 * only when no socket of either pool has heard from the database while the probe waited.
 */

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two one-connection pools on one database, open, behind a proxy that holds new connections. */
async function poolsWithStalledProbe() {
  const direct = new URL(ADMIN_DATABASE_URL);
  const proxy = await TcpProxy.start({ host: direct.hostname, port: Number(direct.port || 5432) });
  cleanups.push(() => proxy.cut());
  const proxied = new URL(direct);
  proxied.port = String(proxy.port);
  const pool = (applicationName: string) => {
    const client = postgresClient(proxied.toString(), { max: 1, pooled: false, applicationName });
    cleanups.push(() => client.end({ timeout: 1 }));
    return client;
  };
  const slow = pool("watchdog test: slow");
  const other = pool("watchdog test: other");
  await slow`select 1`;
  await other`select 1`;
  proxy.stallNew();
  return { slow, other };
}

/** A statement that outlasts the suspicion and a probe's deadline together. */
const SLOW_SECONDS = (DATABASE_TIMEOUTS.suspectMs + DATABASE_TIMEOUTS.probeMs) / 1000 + 2;

describe("the database watchdog", () => {
  it("leaves a long statement alone while the database answers another pool's socket, though its probe goes unanswered", { timeout: 60_000 }, async () => {
    const { slow, other } = await poolsWithStalledProbe();
    // The database answers the other pool all along, as a busy one does.
    let answering = true;
    let answered = 0;
    const traffic = (async () => {
      while (answering) answered += (await other`select 1 as one`).length;
    })();
    try {
      const rows = await slow`select pg_sleep(${SLOW_SECONDS}) as slept`;
      expect(rows).toHaveLength(1);
    } finally {
      answering = false;
      await traffic;
    }
    expect(answered).toBeGreaterThan(0);
  });

  it("cuts that statement when nothing hears from the database while the probe waits", { timeout: 60_000 }, async () => {
    const { slow } = await poolsWithStalledProbe();
    await expect(slow`select pg_sleep(${SLOW_SECONDS}) as slept`).rejects.toMatchObject({ code: "ETIMEDOUT" });
  });
});
