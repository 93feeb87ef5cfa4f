/**
 * Benchmark (issue 13): the operations router behind the catch-all route against a Hono +
 * @hono/zod-openapi prototype behind the same catch-all (bench/routing/hono-route.ts), on three
 * measures. Run `npx next build` first; the Hono variant is built here, in a temporary copy of
 * the project (a few minutes).
 *
 *   npm run bench:routing -- [--seconds 10] [--rounds 5] [--connections 16] [--starts 3] [--skip-hono]
 *
 * - throughput: requests/s of GET /api/health (the floor: no token, no database) and of
 *   representative operations (GET a customer on both path forms, list customers, an unknown
 *   path), each with its ratio to the floor of the same server;
 * - cold start: from spawning `next start` to the first 200 of GET /api/health (median of --starts);
 * - bundle: the bytes of the server chunks the catch-all route loads, and of .next/server in all.
 *
 * Both servers run side by side and are measured in alternating rounds (--rounds runs of
 * seconds/rounds each, per scenario and variant), cold starts alternating too, so a machine whose
 * load drifts weighs on both alike. Still: compare the ratios (and the Hono/router ratios), not the absolute
 * figures. Prints figures only; asserts nothing. Uses a fresh database on the tests' PostgreSQL
 * (TEST_ADMIN_DATABASE_URL), dropped at the end.
 */
import "./limits";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { migratePostgres } from "@/db/migrate";
import { issueToken } from "@/lib/auth/tokens";
import { newId } from "@/lib/ids";
import { createFreshDatabase } from "@/tests/helpers/database";
import { freePort, PROJECT_ROOT } from "@/tests/helpers/server";
import { statusOf } from "@/tests/helpers/status";

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : (process.argv[index + 1] ?? fallback);
}
const SECONDS = Number(option("seconds", "10"));
const CONNECTIONS = Number(option("connections", "16"));
const STARTS = Number(option("starts", "3"));
const ROUNDS = Number(option("rounds", "5"));
const FLOOR = "GET /api/health (floor)";
const HONO = !process.argv.includes("--skip-hono");
const CATCH_ALL = "app/api/[[...path]]/route.ts";

type Variant = { name: string; root: string };
type Server = { baseUrl: string; coldStartMs: number; stop: () => Promise<void> };
type Figures = { coldStartMs: number; routeBytes: number; serverBytes: number; rps: Map<string, number> };

/** Spawns `next start` in `root` and times it until GET /api/health answers 200. */
async function start(root: string, env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = "";
  const began = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(root, "node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"],
    { cwd: root, env: { ...process.env, ...env, NEXTAUTH_URL: baseUrl, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited:\n${output}`);
    try {
      if ((await statusOf(`${baseUrl}/api/health`)) === 200) break;
    } catch {
      // not listening yet
    }
    if (performance.now() - began > 120_000) {
      child.kill("SIGKILL");
      throw new Error(`no answer within 120 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const coldStartMs = performance.now() - began;
  return {
    baseUrl,
    coldStartMs,
    stop: async () => {
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}

/** Bytes of the chunks the catch-all's entry loads, and of the whole server output. */
function bundleBytes(root: string): { routeBytes: number; serverBytes: number } {
  const server = path.join(root, ".next/server");
  const entry = fs.readFileSync(path.join(server, "app/api/[[...path]]/route.js"), "utf8");
  const chunks = [...new Set([...entry.matchAll(/"(server\/chunks\/[^"]+\.js)"/g)].map((match) => match[1]!))];
  const routeBytes = chunks.reduce((sum, chunk) => sum + fs.statSync(path.join(root, ".next", chunk)).size, entry.length);
  const total = (dir: string): number =>
    fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, item) => {
      const full = path.join(dir, item.name);
      return sum + (item.isDirectory() ? total(full) : item.name.endsWith(".js") ? fs.statSync(full).size : 0);
    }, 0);
  return { routeBytes, serverBytes: total(server) };
}

/** A copy of the project (node_modules hard-linked) with the Hono prototype as the catch-all, built. */
function buildHonoVariant(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "bench-routing-hono-"));
  const files = spawnSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], { cwd: PROJECT_ROOT, encoding: "utf8" })
    .stdout.split("\0")
    .filter((file) => file && fs.existsSync(path.join(PROJECT_ROOT, file)));
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.copyFileSync(path.join(PROJECT_ROOT, file), path.join(root, file));
  }
  spawnSync("cp", ["-al", path.join(PROJECT_ROOT, "node_modules"), path.join(root, "node_modules")]);
  fs.copyFileSync(path.join(PROJECT_ROOT, "bench/routing/hono-route.ts"), path.join(root, CATCH_ALL));
  console.log(`  building the Hono variant in ${root} …`);
  const build = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], { cwd: root, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`next build of the Hono variant failed:\n${build.stdout}\n${build.stderr}`);
  return root;
}

/** Cold starts, alternating the variants so that the machine's load drifts over both alike. */
async function coldStarts(variants: Variant[], env: Record<string, string>): Promise<Map<string, Server>> {
  const times = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  const servers = new Map<string, Server>();
  for (let i = 0; i < STARTS; i++) {
    for (const variant of variants) {
      await servers.get(variant.name)?.stop();
      const server = await start(variant.root, env);
      servers.set(variant.name, server);
      times.get(variant.name)!.push(server.coldStartMs);
    }
  }
  for (const [name, server] of servers) {
    const sorted = times.get(name)!.sort((a, b) => a - b);
    server.coldStartMs = sorted[Math.floor(sorted.length / 2)]!;
  }
  return servers;
}

/** Throughput per scenario: ROUNDS short runs per variant, alternating, summed. */
async function throughput(servers: Map<string, Server>, token: string, accountId: string): Promise<Map<string, Map<string, number>>> {
  const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const customers = new Map<string, string>();
  for (const [name, server] of servers) {
    const created = await fetch(`${server.baseUrl}/api/customers`, { method: "POST", headers: auth, body: JSON.stringify({ email: `bench-${name}@example.com` }) });
    if (created.status !== 201) throw new Error(`creating a customer: ${created.status} ${await created.text()}`);
    customers.set(name, ((await created.json()) as { id: string }).id);
  }
  const scenarios: [string, (customer: string) => string, boolean, number][] = [
    [FLOOR, () => "/api/health", false, 200],
    ["GET /api/customers/{id}", (customer) => `/api/customers/${customer}`, true, 200],
    ["GET /api/{account_id}/customers/{id}", (customer) => `/api/${accountId}/customers/${customer}`, true, 200],
    ["GET /api/customers?limit=10", () => "/api/customers?limit=10", true, 200],
    ["GET /api/nope/x (404)", () => "/api/nope/x", false, 404],
  ];
  const rps = new Map<string, Map<string, number>>([...servers.keys()].map((name) => [name, new Map()]));
  for (const [label, url, withToken, status] of scenarios) {
    const totals = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, server] of servers) {
        const target = server.baseUrl + url(customers.get(name)!);
        const headers = withToken ? auth : {};
        const check = await fetch(target, { headers });
        if (check.status !== status) throw new Error(`${name} ${label}: ${check.status} ${await check.text()}`);
        const result = await autocannon({ url: target, connections: CONNECTIONS, duration: SECONDS / ROUNDS, headers });
        if (result.errors > 0 || (status === 200 && result.non2xx > 0)) console.log(`  ${name} ${label}: ${result.errors} errors, ${result.non2xx} non-2xx`);
        totals.set(name, (totals.get(name) ?? 0) + result.requests.total);
      }
    }
    for (const [name, total] of totals) rps.get(name)!.set(label, total / SECONDS);
  }
  return rps;
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(PROJECT_ROOT, ".next/server/app/api/[[...path]]/route.js"))) throw new Error("Run `npx next build` first.");
  const variants: Variant[] = [{ name: "router", root: PROJECT_ROOT }];
  let honoRoot: string | undefined;
  const database = await createFreshDatabase("bench_routing");
  const sql = postgres(database.url, { max: 2, onnotice: () => {} });
  try {
    if (HONO) variants.push({ name: "hono", root: (honoRoot = buildHonoVariant()) });
    await migratePostgres(database.url);
    const organization = newId("organization");
    const accountId = newId("account");
    await sql`insert into organizations (id, name) values (${organization}, 'Benchmark')`;
    await sql`insert into accounts (id, organization_id, name, livemode) values (${accountId}, ${organization}, 'Measured', true)`;
    const token = (await issueToken(drizzle(sql), { accountId, kind: "secret", name: "bench" })).token;
    const env = { DATABASE_URL: database.url, NEXTAUTH_SECRET: randomBytes(32).toString("base64url"), WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url") };
    console.log(`Routing benchmark, ${new Date().toISOString()}.`);
    const servers = await coldStarts(variants, env);
    const figures = new Map<string, Figures>();
    try {
      const rps = await throughput(servers, token, accountId);
      for (const variant of variants) {
        figures.set(variant.name, { coldStartMs: servers.get(variant.name)!.coldStartMs, ...bundleBytes(variant.root), rps: rps.get(variant.name)! });
      }
    } finally {
      for (const server of servers.values()) await server.stop();
    }

    const router = figures.get("router")!;
    const hono = figures.get("hono");
    const floor = (f: Figures) => f.rps.get(FLOOR)!;
    const row = (label: string, a: string, b = "", c = "") => console.log(`  ${label.padEnd(52)} ${a.padStart(16)} ${b.padStart(16)} ${c.padStart(12)}`);
    console.log(`Routing benchmark: ${SECONDS} s per scenario and variant in ${ROUNDS} alternating rounds at ${CONNECTIONS} connections; cold start median of ${STARTS}.`);
    row("", "router", hono ? "hono" : "", hono ? "hono/router" : "");
    for (const [label, value] of router.rps) {
      const other = hono?.rps.get(label);
      const cell = (f: Figures, v: number) => `${v.toFixed(0)} (${(v / floor(f)).toFixed(2)})`;
      row(`${label} rps (÷ floor)`, cell(router, value), hono && other ? cell(hono, other) : "", other ? (other / value).toFixed(2) : "");
    }
    const ratio = (a: number, b?: number) => (b === undefined ? "" : (b / a).toFixed(2));
    row("cold start, ms (median)", router.coldStartMs.toFixed(0), hono?.coldStartMs.toFixed(0), ratio(router.coldStartMs, hono?.coldStartMs));
    row("catch-all route chunks, KiB", (router.routeBytes / 1024).toFixed(0), hono ? (hono.routeBytes / 1024).toFixed(0) : "", ratio(router.routeBytes, hono?.routeBytes));
    row(".next/server JS, KiB", (router.serverBytes / 1024).toFixed(0), hono ? (hono.serverBytes / 1024).toFixed(0) : "", ratio(router.serverBytes, hono?.serverBytes));
  } finally {
    await sql.end({ timeout: 5 });
    await database.drop();
    if (honoRoot) fs.rmSync(honoRoot, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
