import { describe, expect, inject, it } from "vitest";
import { api, apiRoot, statusOf } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { startApp } from "../helpers/server";
import { authUrl } from "../helpers/sign-in";

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

/**
 * Node.js prints a deprecation or runtime warning once per process, as `(node:PID) …Warning: …`, to
 * stderr: a server that starts clean and serves its everyday routes clean uses nothing its
 * Node.js (24) has deprecated. `--trace-deprecation` makes any such warning name its caller.
 */
describe("runtime warnings", () => {
  it("none at start-up or while serving pages, the API, webhooks and sign-in", { timeout: 90_000 }, async () => {
    const app = await startApp({ DATABASE_URL: inject("databaseUrl"), NODE_OPTIONS: "--trace-deprecation --trace-warnings" });
    try {
      const merchant = await newMerchant();
      const client = api(merchant.secret.token, apiRoot(app.baseUrl));
      // An endpoint first, so the customer's event is delivered (to a closed port: an attempt that fails).
      expect((await client.post(`/${merchant.accountId}/webhook-endpoints`, { url: "https://127.0.0.1:9/hook", events: ["*"] })).status).toBe(201);
      expect((await client.post("/customers", { email: "warnings@example.com" })).status).toBe(201);
      expect((await client.get("/customers")).status).toBe(200);
      for (const path of ["/health", "/health/ready", "/openapi.json"] as const) expect((await client.get(path)).status, path).toBe(200);
      for (const url of [`${app.baseUrl}/signin`, authUrl(app.baseUrl, "/csrf"), `${app.baseUrl}/reference`]) {
        expect(await statusOf(url), url).toBe(200);
      }
    } finally {
      await app.stop();
    }
    expect(app.output()).not.toMatch(/\(node:\d+\) \[?\w*(Warning|DEP\d+)/);
  });
});
