import { constants, setPriority } from "node:os";
import postgres from "postgres";

/** How often the database's new sessions are looked for: the pools open theirs in the first steps. */
const SESSION_SCAN_MS = 1_000;

/**
 * Runs this process, and the PostgreSQL sessions on `databaseUrl`, at the lowest CPU priority
 * (nice 19), so that they take only what the rest of the run leaves idle. The billing property
 * shards use it: they are CPU work that runs beside the api files, which spend much of their time
 * waiting on their apps, receivers and clocks (docs/testing.md, "The property shards beside the api
 * files"). When nothing else wants the cores, priority changes nothing: the shards run at full speed.
 *
 * A session's backend is a process of its own, owned by PostgreSQL's user: renicing it needs root
 * (as CI runs here). Without that right the sessions keep their priority and the shards still run,
 * only less politely. Answers a stop function for the scan.
 */
export function runAtLowestPriority(databaseUrl: string): () => Promise<void> {
  setPriority(0, constants.priority.PRIORITY_LOW);
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {}, connection: { application_name: "lowest-priority" } });
  const reniced = new Set<number>();
  let permitted = true;
  const scan = async () => {
    const sessions = await sql<{ pid: number }[]>`
      select pid from pg_stat_activity where datname = current_database() and backend_type = 'client backend'`;
    for (const { pid } of sessions) {
      if (reniced.has(pid)) continue;
      try {
        setPriority(pid, constants.priority.PRIORITY_LOW);
        reniced.add(pid);
      } catch (error) {
        // ESRCH: the session ended since the scan. EACCES/EPERM: not root; stop trying.
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") permitted = false;
      }
    }
  };
  let scanning: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    if (!permitted) return clearInterval(timer);
    scanning = scanning.then(scan).catch(() => {});
  }, SESSION_SCAN_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await scanning;
    await sql.end({ timeout: 5 });
  };
}
