import postgres from "postgres";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_TIMEOUTS } from "@/db/client";
import { SocketWatchdog } from "@/db/watchdog";
import { ADMIN_DATABASE_URL } from "../helpers/database";
import { TcpProxy } from "../helpers/tcp-proxy";

/*
 * db/watchdog.ts tells a slow database from a gone one. Its probe (a fresh connection with a short
 * deadline) is sent here through a proxy that holds every byte, as a host too loaded to start a
 * backend in time would; the pool's own sockets reach PostgreSQL directly, with the service's
 * timeouts. A statement that runs longer than the suspicion threshold is then cut only when no
 * other socket of the pool has heard from the database while the probe waited.
 */

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two one-connection pools sharing one watchdog, whose probe goes through a stalled proxy. */
async function poolsWithStalledProbe() {
  const direct = new URL(ADMIN_DATABASE_URL);
  const proxy = await TcpProxy.start({ host: direct.hostname, port: Number(direct.port || 5432) });
  cleanups.push(() => proxy.cut());
  const probed = new URL(direct);
  probed.port = String(proxy.port);
  const t = DATABASE_TIMEOUTS;
  const watchdog = new SocketWatchdog(
    probed.toString(),
    { connectMs: t.connectSeconds * 1000, suspectMs: t.suspectMs, probeMs: t.probeMs, hardMs: t.hardMs },
    true,
  );
  const pool = () => {
    // `socket` is postgres.js's own option, missing from its types (as in db/client.ts).
    const client = postgres(ADMIN_DATABASE_URL, { max: 1, prepare: false, onnotice: () => {}, ssl: false, ...({ socket: watchdog.socket } as object) });
    cleanups.push(() => client.end({ timeout: 1 }));
    return client;
  };
  const slow = pool();
  const other = pool();
  await slow`select 1`;
  await other`select 1`;
  proxy.stall();
  return { slow, other };
}

/** A statement that outlasts the suspicion and a probe's deadline together. */
const SLOW_SECONDS = (DATABASE_TIMEOUTS.suspectMs + DATABASE_TIMEOUTS.probeMs) / 1000 + 2;

describe("the database watchdog", () => {
  it("leaves a long statement alone while the database answers the pool's other sockets, though its probe goes unanswered", { timeout: 60_000 }, async () => {
    const { slow, other } = await poolsWithStalledProbe();
    // The database answers this pool's other connection all along, as a busy one does.
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

  it("cuts that statement when nothing of the pool hears from the database while the probe waits", { timeout: 60_000 }, async () => {
    const { slow } = await poolsWithStalledProbe();
    await expect(slow`select pg_sleep(${SLOW_SECONDS}) as slept`).rejects.toMatchObject({ code: "ETIMEDOUT" });
  });
});
