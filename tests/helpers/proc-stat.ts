import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * A process's parent, the CPU time (user + system, ms) it has used so far and that of its children
 * it has waited for (and theirs), from /proc; throws when it is gone.
 */
export function procStat(pid: number | "self"): { parent: number; cpuMs: number; childrenCpuMs: number } {
  // After the command's closing parenthesis: state, ppid, …; utime, stime, cutime and cstime are stat's fields 14–17.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const ms = (...ticks: string[]) => (ticks.reduce((sum, value) => sum + Number(value), 0) * 1000) / TICKS_PER_SECOND;
  return { parent: Number(fields[1]), cpuMs: ms(fields[11]!, fields[12]!), childrenCpuMs: ms(fields[13]!, fields[14]!) };
}
