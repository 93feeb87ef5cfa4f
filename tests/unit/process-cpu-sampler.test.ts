import { describe, expect, it } from "vitest";
import { commandName } from "../setup/process-cpu-sampler";

describe("the test profile's names for the run's other processes (tests/setup/process-cpu-sampler.ts)", () => {
  it("names the program and the script or package binary it runs, not tsx's loader", () => {
    expect(commandName("/root/.cache/node-24/bin/node /work/ci/node_modules/tsx/dist/cli.mjs scripts/seed.ts --quiet")).toBe("node scripts/seed.ts");
    expect(commandName("/root/.cache/node-24/bin/node scripts/run.mjs scripts/seed.ts --json")).toBe("node scripts/seed.ts");
    expect(commandName("node --require /work/ci/node_modules/tsx/dist/preflight.cjs --import file:///work/ci/node_modules/tsx/dist/loader.mjs /work/ci/tests/helpers/smtp-server.ts")).toBe("node helpers/smtp-server.ts");
    expect(commandName("node node_modules/typescript-7/bin/tsc --noEmit")).toBe("node typescript-7/bin/tsc");
    expect(commandName("/usr/sbin/pgbouncer -q /tmp/pgbouncer-x/pgbouncer.ini")).toBe("pgbouncer");
    expect(commandName("/work/ci/node_modules/@esbuild/linux-x64/bin/esbuild --service=0.28.2 --ping")).toBe("esbuild");
    expect(commandName("")).toBe("");
  });
});
