import { readdirSync, readFileSync } from "node:fs";
import { procStat } from "@/tests/helpers/proc-stat";

/** Clock ticks per second of /proc/stat (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * The CPU every core of the machine has spent so far (ms, busy only: user, nice, system, interrupts,
 * steal; not idle or I/O wait), and the part of it that went to PostgreSQL's processes, the given
 * app and this process (the load generator and whatever else a benchmark runs in it, such as a
 * webhook receiver).
 *
 * A write that starts background work on the same machine (webhook deliveries, their receiver) is
 * not measured by its own process's CPU: what the machine spends on it, read to the moment that
 * work is done, is. And since a saturated machine's throughput is its cores over that cost, the
 * ratio of two such costs is the most one write's throughput can be of another's on these cores
 * (`bestRatio`).
 */
export type CpuReading = { machineMs: number; postgres: Map<number, number>; appMs: number; selfMs: number };

export function readCpu(appPid: number): CpuReading {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …: busy is all but idle (3) and iowait (4).
  const busyTicks = fields.slice(0, 8).reduce((sum, value, index) => (index === 3 || index === 4 ? sum : sum + value), 0);
  const self = process.cpuUsage();
  return {
    machineMs: (busyTicks * 1000) / TICKS_PER_SECOND,
    postgres: postgresCpuMs(),
    appMs: procStat(appPid).cpuMs,
    selfMs: (self.user + self.system) / 1000,
  };
}

/** What each part spent between two readings, per `count` (a request, say). */
export function cpuPer(before: CpuReading, after: CpuReading, count: number): { machineMs: number; postgresMs: number; appMs: number; selfMs: number; otherMs: number } {
  const per = (key: "machineMs" | "appMs" | "selfMs") => (after[key] - before[key]) / Math.max(1, count);
  // Each PostgreSQL process's own share: one started meanwhile counts whole; one that ended meanwhile
  // (an idle connection closed) is lost, its last part left in `otherMs`.
  let postgresMs = 0;
  for (const [pid, ms] of after.postgres) postgresMs += ms - (before.postgres.get(pid) ?? 0);
  const machineMs = per("machineMs");
  const parts = { postgresMs: postgresMs / Math.max(1, count), appMs: per("appMs"), selfMs: per("selfMs") };
  return { machineMs, ...parts, otherMs: Math.max(0, machineMs - parts.postgresMs - parts.appMs - parts.selfMs) };
}

/** The most `write`'s throughput can be of `floor`'s on the same saturated cores: the inverse ratio of their machine CPU per request. */
export function bestRatio(floor: { machineMs: number }, write: { machineMs: number }): number {
  return write.machineMs > 0 ? floor.machineMs / write.machineMs : 0;
}

/** Each PostgreSQL process's CPU so far (ms), by pid: the postmaster, its backends and workers (every database's). */
function postgresCpuMs(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
      if (/^postgres(:| )|\/postgres /.test(command)) byPid.set(Number(entry), procStat(Number(entry)).cpuMs);
    } catch {
      // ended meanwhile
    }
  }
  return byPid;
}
