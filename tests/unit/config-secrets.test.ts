import { describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config";

const DATABASE_URL = "postgres://postgres@127.0.0.1:5432/billing";
const SECRET = "s".repeat(32);

describe("production configuration refuses to start without its secrets", () => {
  it("names a missing NEXTAUTH_SECRET and WEBHOOK_SECRET_KEY on PostgreSQL in production", () => {
    expect(() => loadConfig({ NODE_ENV: "production", DATABASE_URL })).toThrow(/NEXTAUTH_SECRET and WEBHOOK_SECRET_KEY must be set/);
    expect(() => loadConfig({ NODE_ENV: "production", DATABASE_URL, NEXTAUTH_SECRET: SECRET })).toThrow(/^WEBHOOK_SECRET_KEY must be set/);
  });

  it("names a secret that is too short", () => {
    expect(() => loadConfig({ NODE_ENV: "production", DATABASE_URL, NEXTAUTH_SECRET: "short", WEBHOOK_SECRET_KEY: SECRET })).toThrow(
      /NEXTAUTH_SECRET must be at least 32 characters/,
    );
  });

  it("accepts both secrets, and the embedded default or development without them", () => {
    expect(loadConfig({ NODE_ENV: "production", DATABASE_URL, NEXTAUTH_SECRET: SECRET, WEBHOOK_SECRET_KEY: SECRET }).production).toBe(true);
    expect(loadConfig({ NODE_ENV: "production" }).databaseUrl).toBeUndefined();
    expect(loadConfig({ NODE_ENV: "development", DATABASE_URL }).production).toBe(false);
  });
});
