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

type ProcessReading = { kind: string; startCpuMs: number; cpuMs: number };

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
  return "other processes of the run";
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

/** Starts sampling; `stop()` ends it and answers CPU seconds by kind, largest first. */
export function startProcessCpuSampler(): { stop: () => [kind: string, cpuMs: number][] } {
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
      const kind = kindOf(pid, readCommand(String(pid)), (child) => stats.get(child)?.parent, root);
      // null: not the run's (or already finished with); a pid is not reused within a run of minutes.
      readings.set(pid, kind === undefined ? null : { kind, startCpuMs: first ? stat.cpuMs : 0, cpuMs: stat.cpuMs });
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
      for (const reading of readings.values()) {
        if (reading) byKind.set(reading.kind, (byKind.get(reading.kind) ?? 0) + reading.cpuMs - reading.startCpuMs);
      }
      return [...byKind].sort((a, b) => b[1] - a[1]);
    },
  };
}
