import postgres from "postgres";
import { afterAll, describe, expect, inject, it } from "vitest";
import { api, apiRoot } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { startApp } from "../helpers/server";

/*
 * A clean shutdown (SIGTERM) loses no request log row and is not held by a client: the request log
 * writes its rows in batches, so the rows of the last requests are in memory when the signal comes
 * (instrumentation-node.ts, docs/request-logs.md "Batching, shutdown, and what a crash loses").
 * Each app here flushes only on a full batch or after a minute, so a row read back after the exit
 * was written by the shutdown itself.
 */
const sql = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {} });
afterAll(() => sql.end({ timeout: 5 }));

const HELD_LOG = { REQUEST_LOG_FLUSH_MS: "60000", REQUEST_LOG_BATCH_SIZE: "10000" };

async function loggedIds(ids: string[]): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`select id from request_logs where id = any(${ids})`;
  return rows.map((row) => row.id).sort();
}

describe("shutdown", () => {
  it("writes the request log's buffered rows before it exits on SIGTERM", { timeout: 120_000 }, async () => {
    const app = await startApp({ DATABASE_URL: inject("databaseUrl"), ...HELD_LOG });
    try {
      const merchant = await newMerchant();
      const client = api(merchant.secret.token, apiRoot(app.baseUrl));
      const ids: string[] = [];
      for (let n = 0; n < 5; n++) {
        const created = await client.post("/customers", { email: `shutdown-${n}@example.com` });
        expect(created.status, created.text).toBe(201);
        ids.push(created.headers.get("x-request-id")!);
      }
      expect(await loggedIds(ids)).toEqual([]);
      expect(await app.terminate()).toEqual({ code: 143, signal: null });
      expect(await loggedIds(ids)).toEqual([...ids].sort());
    } finally {
      await app.stop();
    }
  });

  it("exits past SHUTDOWN_DRAIN_MS while a client holds an answer unread, and still writes the log", { timeout: 120_000 }, async () => {
    const app = await startApp({ DATABASE_URL: inject("databaseUrl"), ...HELD_LOG, SHUTDOWN_DRAIN_MS: "1000" });
    try {
      const merchant = await newMerchant();
      const client = api(merchant.secret.token, apiRoot(app.baseUrl));
      const created = await client.post("/customers", { email: "shutdown-held@example.com" });
      expect(created.status, created.text).toBe(201);
      // The API reference page is larger than the sockets hold: left unread, its answer cannot
      // finish, and Next.js's own shutdown waits for it (it did, until the platform's SIGKILL).
      const unread = await fetch(`${app.baseUrl}/reference`);
      expect(unread.status).toBe(200);
      expect(await app.terminate()).toEqual({ code: 143, signal: null });
      expect(app.output()).toMatch(/Requests still in flight 1000 ms after SIGTERM/);
      expect(await loggedIds([created.headers.get("x-request-id")!])).toHaveLength(1);
      await unread.body?.cancel().catch(() => undefined);
    } finally {
      await app.stop();
    }
  });
});
