import { readFileSync } from "node:fs";

/** A process's resident memory now, in bytes (VmRSS of /proc/<pid>/status). */
export function residentBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`No VmRSS for process ${pid}`);
  return Number(match[1]) * 1024;
}

/**
 * The highest resident memory of `pid` while `work` runs, sampled every 50 ms, and what `work`
 * answered: how much memory a server needed for a request (an export, …).
 */
export async function peakResidentBytes<T>(pid: number, work: () => Promise<T>): Promise<{ peak: number; result: T }> {
  let peak = residentBytes(pid);
  const timer = setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 50);
  try {
    const result = await work();
    peak = Math.max(peak, residentBytes(pid));
    return { peak, result };
  } finally {
    clearInterval(timer);
  }
}
