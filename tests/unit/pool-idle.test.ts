import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { postgresClient } from "@/db/client";
import { loadConfig } from "@/lib/config";
import { ADMIN_DATABASE_URL } from "../helpers/database";
import { eventually } from "../helpers/receiver";

/*
 * DATABASE_IDLE_SECONDS (docs/deploy.md): how long a pooled connection may sit idle before it is
 * closed. PostgreSQL's own list of sessions is the witness.
 */

const admin = postgres(ADMIN_DATABASE_URL, { max: 1, onnotice: () => {} });
afterAll(() => admin.end());

describe("a pool's idle connections", () => {
  it("reads DATABASE_IDLE_SECONDS, and leaves the service's default when it is unset", () => {
    expect(loadConfig({ DATABASE_URL: ADMIN_DATABASE_URL, DATABASE_IDLE_SECONDS: "5" }).database.idleSeconds).toBe(5);
    expect(loadConfig({ DATABASE_URL: ADMIN_DATABASE_URL }).database.idleSeconds).toBeUndefined();
    expect(() => loadConfig({ DATABASE_URL: ADMIN_DATABASE_URL, DATABASE_IDLE_SECONDS: "0" })).toThrow(/DATABASE_IDLE_SECONDS/);
  });

  it("closes a connection idle for its pool's idleSeconds", { timeout: 60_000 }, async () => {
    const applicationName = `pool-idle test ${process.pid}`;
    const client = postgresClient(ADMIN_DATABASE_URL, { max: 2, pooled: false, applicationName, idleSeconds: 1 });
    try {
      await Promise.all([client`select pg_sleep(0.2)`, client`select pg_sleep(0.2)`]);
      const sessions = async () => (await admin`select count(*)::int as n from pg_stat_activity where application_name = ${applicationName}`)[0]!.n as number;
      expect(await sessions()).toBe(2);
      await eventually(sessions, (open) => open === 0, 30_000);
    } finally {
      await client.end({ timeout: 1 });
    }
  });
});
