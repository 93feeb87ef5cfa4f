import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

/**
 * scripts/run.mjs, which runs `npm run seed`, `db:migrate`, `user:create` and the other scripts
 * that load lib/ as a cached bundle: it must run the sources as they are now, however often they
 * change, with the script's own arguments and exit code, and resolve what tsx resolves.
 */
const ROOT = path.resolve(__dirname, "../..");
// Under the project (esbuild applies tsconfig's paths to no file under node_modules), in .cache/,
// which git, ESLint and the type check leave alone.
const cache = path.join(ROOT, ".cache");
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(path.join(cache, "script-runner-test-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  // The bundles the runner cached for this directory's scripts.
  const bundles = path.join(ROOT, "node_modules", ".cache", "scripts");
  const key = path.relative(ROOT, dir).replace(/[\\/]/g, "__");
  for (const name of readdirSync(bundles)) if (name.startsWith(key)) rmSync(path.join(bundles, name), { force: true });
});

const run = (entry: string, args: string[] = []) =>
  promisify(execFile)(process.execPath, ["scripts/run.mjs", path.relative(ROOT, entry), ...args], { cwd: ROOT }).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: "" }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

describe("node scripts/run.mjs", () => {
  it("runs the sources as they are at each run, with the script's arguments, its exit code and its errors' source lines", { timeout: 60_000 }, async () => {
    const entry = path.join(dir, "entry.ts");
    const helper = path.join(dir, "helper.ts");
    writeFileSync(helper, `export const word: string = "first";\nexport const where = import.meta.dirname;\n`);
    writeFileSync(
      entry,
      [
        `import { word, where } from "./helper";`,
        `import { fileURLToPath } from "node:url";`,
        `import { percentOff } from "@/lib/money";`, // tsconfig's paths, as lib/ is imported
        `import MailComposer from "nodemailer/lib/mail-composer";`, // a deep import Node's ESM resolver refuses
        `const fail = process.argv.includes("--fail");`,
        `console.log(JSON.stringify({ word, where, self: fileURLToPath(import.meta.url), args: process.argv.slice(2), script: process.argv[1], amount: typeof percentOff, composer: typeof MailComposer }));`,
        `if (fail) throw new Error("failed on purpose");`,
        `process.exitCode = process.argv.includes("--three") ? 3 : 0;`,
      ].join("\n"),
    );

    const first = await run(entry, ["--json", "x"]);
    expect(first.code).toBe(0);
    // Each module's import.meta names its own source file, as under tsx: scripts find the project by it.
    expect(JSON.parse(first.stdout)).toEqual({ word: "first", where: dir, self: entry, args: ["--json", "x"], script: entry, amount: "function", composer: "function" });

    writeFileSync(helper, `export const word: string = "second";\nexport const where = import.meta.dirname;\n`);
    expect(JSON.parse((await run(entry)).stdout).word).toBe("second");
    // Unchanged sources: the same bundle, and the same output.
    expect(JSON.parse((await run(entry)).stdout).word).toBe("second");

    expect((await run(entry, ["--three"])).code).toBe(3);
    const failed = await run(entry, ["--fail"]);
    expect(failed.code).toBe(1);
    // The stack names the source file and line, not the bundle's.
    expect(failed.stderr).toContain("failed on purpose");
    expect(failed.stderr).toMatch(/entry\.ts:7/);
  });

  it("refuses to run without a script, with its usage", async () => {
    const { code, stderr } = await promisify(execFile)(process.execPath, ["scripts/run.mjs"], { cwd: ROOT }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(code).toBe(2);
    expect(stderr).toContain("Usage: node scripts/run.mjs");
  });
});
