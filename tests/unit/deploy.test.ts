import { describe, expect, it } from "vitest";
import { DATABASE_TIMEOUTS, postgresClient } from "@/db/client";
import { loadConfig } from "@/lib/config";
import { databaseSettings, looksPooled, migrationUrl, SERVER_POOL_SIZE, SERVERLESS_POOL_SIZE } from "@/lib/deploy";

const SECRET = "c".repeat(24);

describe("pooled database URLs", () => {
  it.each([
    ["postgres://u:p@db.example.com:6432/app?pgbouncer=true", true],
    ["postgres://u:p@ep-cool-name-123456-pooler.eu-central-1.aws.neon.tech/app?sslmode=require", true],
    ["postgres://u:p@ep-cool-name-123456.eu-central-1.aws.neon.tech/app?sslmode=require", false],
    ["postgres://u:p@aws-0-eu-central-1.pooler.supabase.com:6543/postgres", true],
    ["postgres://u:p@aws-0-eu-central-1.pooler.supabase.com:5432/postgres", false],
    ["postgres://postgres@127.0.0.1:5432/billing", false],
  ])("%s is pooled: %s", (url, pooled) => {
    expect(looksPooled(new URL(url))).toBe(pooled);
  });

  it("strips the pgbouncer flag (PostgreSQL would refuse it as a startup parameter) and has no direct URL of its own", () => {
    const settings = databaseSettings({ DATABASE_URL: "postgres://u@h:6432/app?pgbouncer=true&sslmode=require" }, false);
    expect(settings).toEqual({ url: "postgres://u@h:6432/app?sslmode=require", pooled: true, directUrl: undefined, poolSize: SERVER_POOL_SIZE });
    expect(() => migrationUrl(settings)).toThrow(/set DATABASE_URL_UNPOOLED/);
  });

  it("migrates on DATABASE_URL_UNPOOLED, or on DATABASE_URL when it is direct", () => {
    const pooled = databaseSettings({ DATABASE_URL: "postgres://u@h-pooler.x/app", DATABASE_URL_UNPOOLED: "postgres://u@h.x/app" }, true);
    expect(migrationUrl(pooled)).toBe("postgres://u@h.x/app");
    expect(migrationUrl(databaseSettings({ DATABASE_URL: "postgres://u@h.x/app" }, false))).toBe("postgres://u@h.x/app");
    expect(migrationUrl(databaseSettings({}, false))).toBeUndefined();
  });

  it("opens connections within the URL's connect_timeout (libpq's parameter), 5 s without it, and refuses one it could not honour", async () => {
    const pools = ["postgres://u@127.0.0.1:1/app?connect_timeout=3", "postgres://u@127.0.0.1:1/app"].map((url) => {
      const { connectSeconds } = databaseSettings({ DATABASE_URL: url }, false);
      return postgresClient(url, { max: 1, pooled: false, applicationName: "deploy test", connectSeconds });
    });
    expect(pools.map((pool) => pool.options.connect_timeout)).toEqual([3, DATABASE_TIMEOUTS.connectSeconds]);
    await Promise.all(pools.map((pool) => pool.end()));

    for (const url of ["postgres://u@h/app?connect_timeout=2", "postgres://u@h/app?connect_timeout=60"]) {
      expect(databaseSettings({ DATABASE_URL: url }, false).url).toBe(url);
    }
    for (const given of ["0", "1", "61", "2.5", "-3", "soon", ""]) {
      expect(() => databaseSettings({ DATABASE_URL: `postgres://u@h/app?connect_timeout=${given}` }, false)).toThrow(
        `DATABASE_URL: connect_timeout must be whole seconds from 2 to 60 (it was "${given}")`,
      );
    }
    expect(() =>
      databaseSettings({ DATABASE_URL: "postgres://u@h-pooler.x/app", DATABASE_URL_UNPOOLED: "postgres://u@h.x/app?connect_timeout=0" }, false),
    ).toThrow(/DATABASE_URL_UNPOOLED: connect_timeout/);
  });

  it("lets DATABASE_POOLED override the URL's look, and sizes pools for serverless", () => {
    expect(databaseSettings({ DATABASE_URL: "postgres://u@own-pooler/app", DATABASE_POOLED: "true" }, true)).toMatchObject({
      pooled: true,
      poolSize: SERVERLESS_POOL_SIZE,
    });
    expect(databaseSettings({ DATABASE_URL: "postgres://u@x-pooler.neon.tech/app", DATABASE_POOLED: "false" }, false).pooled).toBe(false);
    expect(databaseSettings({ DATABASE_URL: "postgres://u@h/app", DATABASE_POOL_SIZE: 7 }, true).poolSize).toBe(7);
  });
});

describe("configuration on Vercel", () => {
  it("refuses the embedded database, naming DATABASE_URL", () => {
    expect(() => loadConfig({ VERCEL: "1", CRON_SECRET: SECRET })).toThrow(/set DATABASE_URL/);
  });

  it("needs CRON_SECRET unless Inngest drives background work", () => {
    const db = { VERCEL: "1", DATABASE_URL: "postgres://u@h/app" };
    expect(() => loadConfig(db)).toThrow(/set CRON_SECRET/);
    expect(() => loadConfig({ ...db, CRON_SECRET: "short" })).toThrow(/CRON_SECRET must be at least 16 characters/);
    expect(loadConfig({ ...db, CRON_SECRET: SECRET })).toMatchObject({ serverless: true, cronSecret: SECRET });
    expect(loadConfig({ ...db, INNGEST_EVENT_KEY: "k", INNGEST_SIGNING_KEY: "s" })).toMatchObject({ serverless: true, inngestConfigured: true });
  });

  it("changes nothing outside Vercel", () => {
    expect(loadConfig({})).toMatchObject({ serverless: false, databaseUrl: undefined, database: { poolSize: SERVER_POOL_SIZE } });
  });
});
