import { spawn } from "node:child_process";
import path from "node:path";
import { PROJECT_ROOT } from "./server";

/**
 * The event and PDF check of a database that the tests write all through the run (the api
 * project's shared one), run beside them in a process of its own at the lowest CPU priority
 * (tests/helpers/event-check-alongside-process.ts), instead of all of it after the last test: the
 * main group of the run leaves a share of the cores idle while its files wait on servers and
 * bounds, and the check at the end ran alone, after every test (docs/testing.md, "The check after
 * the tests"). `finish` once the database's writers have stopped: the checker reads what is left,
 * writes the database's entry to the run's ledger and exits; the database's drop then checks
 * nothing more (`checkedAlongTheRun`).
 */
export type EventCheckAlongside = {
  /** Resolves once a pass has read every row of transactions with ids below `xid` (32-bit, as a row's `xmin`). */
  passedBeyond: (xid: number) => Promise<void>;
  finish: () => Promise<void>;
};

export function startEventCheckAlongside(databaseUrl: string, env: Record<string, string> = {}): EventCheckAlongside {
  // At the lowest priority from its start (`nice`: every thread of its Node.js, and the qpdf and
  // pdftotext it runs, inherit it): it takes the cores' idle time, not the tests'.
  const command = [process.execPath, path.join(PROJECT_ROOT, "scripts/run.mjs"), "tests/helpers/event-check-alongside-process.ts", databaseUrl];
  const child = spawn("nice", ["-n", "19", ...command], {
    cwd: PROJECT_ROOT,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    env: { ...process.env, ...env },
  });
  let passed = 0;
  const waiting = new Set<{ xid: number; resolve: () => void; reject: (error: Error) => void }>();
  child.on("message", (message: { passed?: number }) => {
    if (typeof message.passed !== "number") return;
    passed = message.passed;
    for (const waiter of waiting) {
      if (passed <= waiter.xid) continue;
      waiting.delete(waiter);
      waiter.resolve();
    }
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      for (const waiter of waiting) waiter.reject(new Error(`The event check beside the run ended (exit code ${code}) before passing transaction ${waiter.xid}.`));
      resolve(code);
    });
  });
  return {
    passedBeyond: (xid) => (passed > xid ? Promise.resolve() : new Promise((resolve, reject) => waiting.add({ xid, resolve, reject }))),
    async finish() {
      if (child.exitCode === null && child.connected) child.send("finish");
      const code = await exited;
      if (code !== 0) throw new Error(`The event check beside the run (tests/helpers/event-check-alongside-process.ts) ended with exit code ${code}.`);
    },
  };
}
