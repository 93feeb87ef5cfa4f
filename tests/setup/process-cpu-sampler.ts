import { readdirSync, readFileSync } from "node:fs";
import { procStat } from "../helpers/proc-stat";

/**
 * The CPU a test run spends, by kind of process: the test workers, the apps they start, PostgreSQL,
 * Chromium, vitest's own process. `npm run test:profile` prints it (tests/setup/profile-reporter.ts),
 * to tell what a slow run computes in: on 2026-12-01 it showed the api workers using more CPU than
 * the app they test (docs/testing.md, "The test workers' CPU").
 *
 * It reads every process's user + system time from /proc twice a second and keeps the last reading
 * of each (the part before the run, for processes already there, taken off). A process that lives
 * less than half a second between two readings is missed; PostgreSQL counts whole, other runs'
 * backends on the same server included. It ends when the tests do, before the projects' global
 * teardowns (the checks of every event and PDF at the end of a run).
 */

const SAMPLE_EVERY_MS = 500;

type ProcessReading = { kind: string; command: string; startCpuMs: number; cpuMs: number };

const OTHER = "other processes of the run";

/**
 * A short name for a process of the "other" kind, for its line under that kind: the program and
 * the first script or package binary it runs ("node tsx/dist/cli.mjs scripts/seed.ts" and "node
 * scripts/run.mjs scripts/seed.ts" are "node scripts/seed.ts"; "/usr/sbin/pgbouncer -q …" is
 * "pgbouncer").
 */
export function commandName(command: string): string {
  const [program = "", ...rest] = command.trim().split(/\s+/);
  const script = rest.find((argument) => /\.(m|c)?[jt]s$/.test(argument) && !/node_modules\/(tsx|\.bin)\/|(^|\/)scripts\/run\.mjs$/.test(argument))
    ?? rest.find((argument) => /node_modules\/\.bin\/|node_modules\/[^/]+\/bin\//.test(argument));
  // A package's path from its name on; a file of ours by its folder and name.
  const short = (file: string) => (file.includes("node_modules/") ? file.replace(/^.*node_modules\//, "") : file.replace(/^.*\/(?=[^/]*\/[^/]*$)/, ""));
  return [program.replace(/^.*\//, ""), script === undefined ? undefined : short(script)].filter(Boolean).join(" ");
}

/** What a process is, from its command line and whether vitest's process is among its ancestors. */
function kindOf(pid: number, command: string, parentOf: (pid: number) => number | undefined, root: number): string | undefined {
  if (/^postgres(:| )|\/postgres /.test(command)) return "PostgreSQL";
  let ancestor: number | undefined = pid;
  for (let depth = 0; ancestor !== undefined && ancestor > 1 && depth < 20; depth++) {
    if (ancestor === root) break;
    ancestor = parentOf(ancestor);
  }
  if (ancestor !== root) return undefined;
  if (pid === root) return "vitest (main process: transforms, reporters, global set-up)";
  if (/next-server|next\/dist\/bin\/next|next start|next dev/.test(command)) return "the apps (next start, next dev)";
  if (/chrom/.test(command)) return "Chromium";
  if (/vitest/.test(command)) return "the test workers";
  if (/qpdf|pdftotext/.test(command)) return "PDF tools (qpdf, pdftotext)";
  return OTHER;
}

/** procStat, or undefined for a process that ended meanwhile. */
function readStat(pid: string): ReturnType<typeof procStat> | undefined {
  try {
    return procStat(Number(pid));
  } catch {
    return undefined;
  }
}

function readCommand(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/**
 * Starts sampling; `stop()` ends it and answers CPU seconds by kind, largest first, and the "other"
 * kind's by command (`commandName`), largest first.
 */
export function startProcessCpuSampler(): { stop: () => { byKind: [kind: string, cpuMs: number][]; others: [command: string, cpuMs: number][] } } {
  const root = process.pid;
  const readings = new Map<number, ProcessReading | null>();
  let first = true;
  const sample = () => {
    const stats = new Map<number, { parent: number; cpuMs: number }>();
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = readStat(entry);
      if (stat) stats.set(Number(entry), stat);
    }
    for (const [pid, stat] of stats) {
      const known = readings.get(pid);
      if (known === null) continue;
      if (known) {
        known.cpuMs = stat.cpuMs;
        continue;
      }
      const command = readCommand(String(pid));
      const kind = kindOf(pid, command, (child) => stats.get(child)?.parent, root);
      // null: not the run's (or already finished with); a pid is not reused within a run of minutes.
      readings.set(pid, kind === undefined ? null : { kind, command: kind === OTHER ? commandName(command) : "", startCpuMs: first ? stat.cpuMs : 0, cpuMs: stat.cpuMs });
    }
    first = false;
  };
  sample();
  const timer = setInterval(sample, SAMPLE_EVERY_MS);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      const byKind = new Map<string, number>();
      const others = new Map<string, number>();
      for (const reading of readings.values()) {
        if (!reading) continue;
        byKind.set(reading.kind, (byKind.get(reading.kind) ?? 0) + reading.cpuMs - reading.startCpuMs);
        if (reading.kind === OTHER) others.set(reading.command, (others.get(reading.command) ?? 0) + reading.cpuMs - reading.startCpuMs);
      }
      const largestFirst = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
      return { byKind: largestFirst(byKind), others: largestFirst(others) };
    },
  };
}
