import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoot, createApiClient, type ApiPath } from "../helpers/api-client";
import { createFreshDatabase } from "../helpers/database";
import { checkPgliteEvents } from "../helpers/event-check";
import { PROJECT_ROOT, startApp, type RunningApp } from "../helpers/server";
import { refusedUrl } from "../helpers/receiver";

const run = promisify(execFile);

describe("with Inngest configured, only Inngest drives deliveries", () => {
  let app: RunningApp;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "billing-inngest-"));
    // Dev mode with no Dev Server listening: hand-offs fail (and are logged), nothing else may deliver.
    // Its endpoint is a loopback address: allowed here, not left to the api project's set-up (run
    // alone, the embedded project had no such setting and the endpoint was refused).
    app = await startApp({ DATABASE_URL: "", BILLING_DATA_DIR: dataDir, INNGEST_DEV: "1", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
    // The server answers at once; the embedded database is migrated and seeded in the background.
    await app.waitForOutput(/sign in as /);
  });
  afterAll(async () => {
    await app?.stop();
    await checkPgliteEvents(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves the functions at the Inngest route and leaves due deliveries to Inngest", async () => {
    const { secret_token: token, account_id: accountId } = JSON.parse(readFileSync(path.join(dataDir, "credentials.json"), "utf8"));
    const client = createApiClient(apiRoot(app.baseUrl), token);
    const post = async (p: ApiPath<"post">, body: unknown) => (await client.post(p, body)).body;

    // Inngest's serve route: plumbing beside the API document.
    const introspection = await fetch(`${apiRoot(app.baseUrl)}/inngest`);
    expect(introspection.status).toBe(200);
    expect(await introspection.json()).toMatchObject({ function_count: 5 });

    expect((await post(`/${accountId}/webhook-endpoints`, { url: await refusedUrl(), events: ["*"] })).id).toMatch(/^whe_/);
    const customer = await post("/customers", { email: "inngest@example.com" });
    expect(customer.id).toMatch(/^cus_/);
    const [event] = (await client.get(`/${accountId}/events`)).body.items;
    // Well past the embedded driver's one-second poll: the delivery is untouched.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const deliveries = (await client.get(`/${accountId}/events/${event.id}/deliveries`)).body;
    expect(deliveries).toEqual([expect.objectContaining({ status: "pending", attempt_count: 0, last_attempt_at: null })]);
    expect(app.output()).toContain("Could not hand deliveries to Inngest");
  });
});

describe("npm run db:migrate", () => {
  it("applies the committed migrations to DATABASE_URL, and again as a no-op", async () => {
    const database = await createFreshDatabase("migrate");
    try {
      const env = { ...process.env, DATABASE_URL: database.url };
      const first = await run("npm", ["run", "--silent", "db:migrate"], { cwd: PROJECT_ROOT, env });
      expect(first.stdout).toContain("Migrations applied.");
      await run("npm", ["run", "--silent", "db:migrate"], { cwd: PROJECT_ROOT, env });
      const sql = postgres(database.url, { max: 1 });
      try {
        const tables = await sql<{ table_name: string }[]>`
          select table_name from information_schema.tables where table_schema = 'public' order by table_name`;
        expect(tables.map((t) => t.table_name)).toEqual(
          expect.arrayContaining(["accounts", "api_tokens", "customers", "event_deliveries", "events", "webhook_endpoints"]),
        );
      } finally {
        await sql.end();
      }
    } finally {
      await database.drop();
    }
  });
});
