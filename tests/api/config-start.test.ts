import { describe, expect, inject, it } from "vitest";
import { startApp } from "../helpers/server";

describe("production start", () => {
  it("stops with a message naming a missing secret instead of answering 500s later", { timeout: 90_000 }, async () => {
    await expect(startApp({ DATABASE_URL: inject("databaseUrl"), NEXTAUTH_SECRET: "" })).rejects.toThrow(
      /Invalid configuration: NEXTAUTH_SECRET must be set/,
    );
    await expect(startApp({ DATABASE_URL: inject("databaseUrl"), WEBHOOK_SECRET_KEY: "too-short" })).rejects.toThrow(
      /WEBHOOK_SECRET_KEY must be at least 32 characters/,
    );
  });
});
