import { describe, expect, inject, it } from "vitest";
import { startApp } from "../helpers/server";

/** Starts the app expecting it to refuse; stops it should it start after all. */
async function startFailure(env: Record<string, string>): Promise<string> {
  try {
    const app = await startApp({ DATABASE_URL: inject("databaseUrl"), NODE_ENV: "production", ...env });
    await app.stop();
    return "started";
  } catch (error) {
    return (error as Error).message;
  }
}

describe("production start", () => {
  it("stops with a message naming a missing or short secret instead of answering 500s later", { timeout: 90_000 }, async () => {
    expect(await startFailure({ NEXTAUTH_SECRET: "" })).toMatch(/Invalid configuration: NEXTAUTH_SECRET must be set/);
    expect(await startFailure({ WEBHOOK_SECRET_KEY: "too-short" })).toMatch(/WEBHOOK_SECRET_KEY must be at least 32 characters/);
  });
});
