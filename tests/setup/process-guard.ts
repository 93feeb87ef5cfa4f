import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dropRunDatabases, dropRunTemplate } from "../helpers/database";
import { processAlive, TEST_RUN_VARIABLE } from "../helpers/test-run";

/*
 * At the end of the run, any process still carrying the run's value of TEST_RUN_VARIABLE is a
 * leak — a test that failed or timed out before its `afterAll`/`finally` stopped its server (a
 * timed-out teams test once left two `next start` running for 80 minutes): it is killed, listed,
 * and the run fails.
 */

/** The processes of this machine whose environment carries `run`, except the run's own vitest processes. */
export function processesOfRun(run: string): { pid: number; command: string }[] {
  const marker = `${TEST_RUN_VARIABLE}=${run}`;
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(marker)) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
      // The test workers themselves (forked from vitest's own worker scripts) end with the run.
      if (command.includes("node_modules/vitest/") || command.includes("node_modules/tinypool/")) continue;
      // A zombie has no command line left; its parent reaps it.
      if (command === "") continue;
      found.push({ pid, command });
    } catch {
      // gone meanwhile, or another user's process
    }
  }
  return found;
}

/**
 * Kills what is left of the run and reports it. Called once per run: the first project whose setup
 * runs owns the run id (every project lists this setup, and a run may hold any of them).
 */
export async function killSurvivors(run: string): Promise<{ pid: number; command: string }[]> {
  const survivors = processesOfRun(run);
  for (const { pid } of survivors) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  // SIGKILL is not refusable: wait (for a condition, not a fixed time) until each is gone.
  const deadline = Date.now() + 10_000;
  while (survivors.some(({ pid }) => processAlive(pid)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return survivors;
}

export default async function setup() {
  if (process.env[TEST_RUN_VARIABLE]) return;
  const run = `${process.pid}-${randomBytes(4).toString("hex")}`;
  process.env[TEST_RUN_VARIABLE] = run;
  // A run that was killed left its databases (their drop waits for the run's end): its main process is gone.
  await dropRunDatabases().catch((error: unknown) => console.error(`Could not drop the databases of earlier runs: ${String(error)}`));
  return async () => {
    const survivors = await killSurvivors(run);
    // The test workers' databases, kept to the run's end, then the migrated template they were copied from (tests/helpers/database.ts).
    await dropRunDatabases(run).catch((error: unknown) => console.error(`Could not drop the run's databases: ${String(error)}`));
    await dropRunTemplate().catch((error: unknown) => console.error(`Could not drop the run's template database: ${String(error)}`));
    if (survivors.length === 0) return;
    console.error(
      [
        "",
        `LEAK: ${survivors.length} process(es) started by this test run were still running at its end (killed now).`,
        "A test that starts a server must stop it in afterAll/finally (tests/helpers/server.ts stops what a file left running):",
        ...survivors.map(({ pid, command }) => `  pid ${pid}: ${command.slice(0, 300)}`),
        "",
      ].join("\n"),
    );
    process.exitCode = 1;
  };
}
