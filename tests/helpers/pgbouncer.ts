import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ADMIN_DATABASE_URL } from "./database";
import { freePort } from "./server";

export const PGBOUNCER_PATH = process.env.PGBOUNCER_PATH ?? "/usr/sbin/pgbouncer";

export type RunningPgBouncer = {
  /** `database` through the pooler, marked `?pgbouncer=true` as Supabase's and Prisma's docs do. */
  pooledUrl: (directUrl: string) => string;
  /** The admin console (SHOW POOLS, SHOW STATS, …). */
  adminUrl: string;
  output: () => string;
  stop: () => Promise<void>;
};

/**
 * A real PgBouncer (Debian's package) in transaction mode on a free loopback port, in front of the
 * tests' PostgreSQL server, as Neon's and Supabase's pooled URLs are. Few server connections
 * (default_pool_size 3), so one client's statements land on different server connections, the
 * case that breaks prepared statements and session state.
 */
export async function startPgBouncer(): Promise<RunningPgBouncer> {
  if (!existsSync(PGBOUNCER_PATH)) {
    throw new Error(`No PgBouncer at ${PGBOUNCER_PATH}: apt-get install pgbouncer (.ci/run does), or set PGBOUNCER_PATH.`);
  }
  const upstream = new URL(ADMIN_DATABASE_URL);
  const user = decodeURIComponent(upstream.username || "postgres");
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "billing-pgbouncer-"));
  // PgBouncer refuses to run as root; as root it switches to the database's OS user (-u), who must read its files.
  chmodSync(dir, 0o755);
  const ini = path.join(dir, "pgbouncer.ini");
  const userlist = path.join(dir, "userlist.txt");
  writeFileSync(userlist, `"${user}" ""\n`, { mode: 0o644 });
  writeFileSync(
    ini,
    [
      "[databases]",
      `* = host=${upstream.hostname} port=${upstream.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${userlist}`,
      `admin_users = ${user}`,
      "pool_mode = transaction",
      "default_pool_size = 3",
      "max_client_conn = 200",
      // What postgres.js may send at start-up that PgBouncer does not track itself.
      "ignore_startup_parameters = extra_float_digits,options",
      "",
    ].join("\n"),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(PGBOUNCER_PATH, [...(asRoot ? ["-u", process.env.PGBOUNCER_USER ?? "postgres"] : []), ini], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!output.includes("process up")) {
    if (child.exitCode !== null) throw new Error(`PgBouncer exited during start:\n${output}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`PgBouncer did not start within 10 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const through = (database: string) => {
    const url = new URL(ADMIN_DATABASE_URL);
    url.port = String(port);
    url.pathname = `/${database}`;
    return url;
  };
  return {
    pooledUrl: (directUrl) => {
      const url = through(new URL(directUrl).pathname.slice(1));
      url.searchParams.set("pgbouncer", "true");
      return url.toString();
    },
    adminUrl: through("pgbouncer").toString(),
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
