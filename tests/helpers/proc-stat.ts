import { readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** A process's parent and the CPU time (user + system, ms) it has used so far, from /proc; throws when it is gone. */
export function procStat(pid: number): { parent: number; cpuMs: number } {
  // After the command's closing parenthesis: state, ppid, …; utime and stime are stat's fields 14 and 15.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return { parent: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND };
}
