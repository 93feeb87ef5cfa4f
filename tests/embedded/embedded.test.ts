import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoot, createApiClient } from "../helpers/api-client";
import { createFreshDatabase } from "../helpers/database";
import { checkPgliteEvents } from "../helpers/event-check";
import { PROJECT_ROOT, startApp, type RunningApp } from "../helpers/server";

const run = promisify(execFile);
const SEED_KEYS = [
  "account_id",
  "sandbox_account_id",
  "secret_token",
  "publishable_token",
  "sandbox_secret_token",
  "dashboard_email",
  "dashboard_password",
].sort();

/** `npm run seed -- --json` exactly as a user runs it; stdout must be one JSON object. */
async function seedJson(env: Record<string, string>) {
  // As a fresh install runs it: the API project's setup turns platform billing on in this process.
  const { PLATFORM_BILLING: _apiTestsSetting, ...inherited } = process.env;
  const { stdout } = await run("npm", ["run", "--silent", "seed", "--", "--json"], {
    cwd: PROJECT_ROOT,
    env: { ...inherited, DATABASE_URL: "", ...env },
  });
  return JSON.parse(stdout) as Record<string, string>;
}

const dataDirs: string[] = [];
const tempDataDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "billing-embedded-"));
  dataDirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of dataDirs) {
    await checkPgliteEvents(dir);
    rmSync(dir, { recursive: true, force: true });
  }
});

describe("the embedded default (PGlite, no DATABASE_URL)", () => {
  let app: RunningApp;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDataDir();
    app = await startApp({ DATABASE_URL: "", BILLING_DATA_DIR: dataDir });
    // The server answers at once; the embedded database is migrated and seeded in the background.
    await app.waitForOutput(/sign in as /);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("migrates and seeds an empty database on first start and prints the login and tokens", async () => {
    const output = app.output();
    expect(output).toContain("Seeded a new embedded database");
    expect(output).toMatch(/sign in as demo@example\.com \/ \S+/);
    const saved = JSON.parse(readFileSync(path.join(dataDir, "credentials.json"), "utf8"));
    expect(output).toContain(saved.secret_token);
    expect(output).toContain(saved.account_id);
  });

  it("serves the API: customers, events, errors", async () => {
    const { secret_token: token, account_id: accountId } = JSON.parse(
      readFileSync(path.join(dataDir, "credentials.json"), "utf8"),
    );
    const client = createApiClient(apiRoot(app.baseUrl), token);
    const created = await client.post("/customers", { email: "embedded@example.com", name: "Embedded" });
    expect(created.status).toBe(201);
    const customer = created.body;

    const events = (await client.get(`/${accountId}/events?aggregate_id=${customer.id}`)).body;
    expect(events.items).toHaveLength(1);
    expect(events.items[0]).toMatchObject({ type: "customer.created", aggregate_id: customer.id, previous_data: null });

    // The events export, its batches written by the database (firstRowBytes' embedded branch).
    const exported = async (format: string) => {
      const response = await fetch(`${apiRoot(app.baseUrl)}/${accountId}/events/export?format=${format}&aggregate_id=${customer.id}`, { headers: { Authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      return response.text();
    };
    const lines = (await exported("ndjson")).split("\n").filter(Boolean).map((line) => JSON.parse(line));
    expect(lines).toEqual(events.items);
    const csv = await exported("csv");
    expect(csv.startsWith("id,type,created,")).toBe(true);
    expect(csv).toContain(`\r\n${events.items[0].id},customer.created,${events.items[0].created},customer,${customer.id},`);
    expect(csv.endsWith("\r\n")).toBe(true);

    // Concurrent creations share transactions (group commit of changes) on the embedded database too.
    const concurrent = await Promise.all(Array.from({ length: 40 }, (_, i) => client.post("/customers", { email: `embedded-${i}@example.com` })));
    expect(concurrent.map((answer) => answer.status)).toEqual(Array.from({ length: 40 }, () => 201));
    for (const answer of concurrent) {
      const own = (await client.get(`/${accountId}/events?aggregate_id=${answer.body.id}`)).body;
      expect(own.items.map((event: { type: string; sequence: number }) => [event.type, event.sequence])).toEqual([["customer.created", 1]]);
    }

    const missing = await client.post("/customers", {});
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toContain("email");
    expect((await createApiClient(apiRoot(app.baseUrl)).get("/customers")).status).toBe(401);
  });

  it("refuses to seed while the server holds the database files", async () => {
    await expect(seedJson({ BILLING_DATA_DIR: dataDir })).rejects.toThrow(/in the running server/);
  });
});

describe("npm run seed -- --json", () => {
  it("prints exactly one JSON object with the documented keys on the embedded database, idempotently", async () => {
    const dataDir = tempDataDir();
    const first = await seedJson({ BILLING_DATA_DIR: dataDir });
    expect(Object.keys(first).sort()).toEqual(SEED_KEYS);
    expect(first.secret_token).toMatch(/^st_prod_/);
    expect(first.publishable_token).toMatch(/^pt_prod_/);
    expect(first.sandbox_secret_token).toMatch(/^st_prod_/);
    expect(first.account_id).toMatch(/^acc_prod_/);
    const second = await seedJson({ BILLING_DATA_DIR: dataDir });
    expect(second.account_id).toBe(first.account_id);
    expect(second.sandbox_account_id).toBe(first.sandbox_account_id);
  });

  it("works with DATABASE_URL: one organization however often it runs, earlier demo tokens revoked", async () => {
    const database = await createFreshDatabase("seed");
    try {
      const first = await seedJson({ DATABASE_URL: database.url });
      const second = await seedJson({ DATABASE_URL: database.url });
      expect(Object.keys(second).sort()).toEqual(SEED_KEYS);
      expect(second.account_id).toBe(first.account_id);
      const sql = postgres(database.url, { max: 1 });
      try {
        // The demo organization once; no platform organization: platform billing is off by default.
        const organizations = await sql`select platform, count(*)::int as count from organizations group by platform order by platform`;
        expect(organizations.map((row) => [row.platform, row.count])).toEqual([[false, 1]]);
        const tokens = await sql`select revoked_at is not null as revoked from api_tokens order by created`;
        expect(tokens.map((t) => t.revoked)).toEqual([true, true, true, false, false, false]);
      } finally {
        await sql.end();
      }
    } finally {
      await database.drop();
    }
  });
});
