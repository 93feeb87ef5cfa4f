import { execFile } from "node:child_process";
import { appendFileSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const GENERATED = ["packages/sdk/openapi.json", "packages/sdk/src/generated/schema.ts", "packages/sdk/src/generated/operations.ts"];
const copies: string[] = [];
afterAll(() => copies.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** `npm run sdk:generate -- --check --root <dir>`: its exit status and what it printed on stderr. */
function staleCheck(under: string): Promise<{ status: number; stderr: string }> {
  const args = ["run", "--silent", "sdk:generate", "--", "--check", "--root", under];
  return new Promise((resolve) => {
    execFile("npm", args, { cwd: root, encoding: "utf8" }, (error, _stdout, stderr) => {
      resolve({ status: error ? Number(error.code ?? 1) : 0, stderr });
    });
  });
}

/** The committed generated files, copied under a temporary directory laid out like the repository. */
function copyOfGenerated(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "sdk-stale-"));
  copies.push(dir);
  for (const file of GENERATED) cpSync(path.join(root, file), path.join(dir, file));
  return dir;
}

describe("SDK stale check (npm run sdk:generate -- --check)", { timeout: 180_000 }, () => {
  // `npm test` runs the check on the repository itself (after typecheck); here it runs on copies.
  it("passes on an exact copy of the generated files and fails, naming the file, on a modified one", async () => {
    const exact = copyOfGenerated();
    const modified = copyOfGenerated();
    appendFileSync(path.join(modified, "packages/sdk/src/generated/schema.ts"), "export type Drift = 1;\n");

    const [passing, failing] = await Promise.all([staleCheck(exact), staleCheck(modified)]);
    expect(passing).toMatchObject({ status: 0, stderr: "" });
    expect(failing.status).toBe(1);
    expect(failing.stderr.trim()).toBe("Stale generated SDK files (run `npm run sdk:generate`): packages/sdk/src/generated/schema.ts");
  });
});
