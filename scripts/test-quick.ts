/**
 * `npm run test:quick`: the everyday loop (target ≤ 60 s). Lints the files this branch changed,
 * typechecks, runs the unit tests and the API tests of the domains it touched. The full command
 * (`npm test`) stays what CI runs: this one trusts it for everything else.
 *
 * Changed files: committed since the branch left main (or since HEAD when there is no main;
 * `-- --since <ref>` picks another base), uncommitted, and untracked. A domain is a folder of lib/ (lib/coupons/…) whose API tests are
 * named after it (tests/api/coupons*.test.ts, tests/api/coupon-*.test.ts); a changed API test file
 * runs itself.
 */
import { spawn, execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const git = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean);

function changedFiles(since: string | undefined): string[] {
  let base = since ?? "HEAD";
  if (!since) {
    try {
      base = git("merge-base", "HEAD", "main")[0] ?? "HEAD";
    } catch {
      // no main branch here: what is not committed yet
    }
  }
  const files = new Set([...git("diff", "--name-only", base), ...git("diff", "--name-only", "HEAD"), ...git("ls-files", "--others", "--exclude-standard")]);
  return [...files].filter((file) => existsSync(path.join(root, file))).sort();
}

/** The API test files of the changed domains, and the changed API test files themselves. */
export function apiTestsFor(files: string[], apiTests: string[]): string[] {
  const selected = new Set<string>();
  for (const file of files) {
    if (/^tests\/api\/[^/]+\.test\.ts$/.test(file)) selected.add(file);
    const domain = /^lib\/([^/]+)\//.exec(file)?.[1];
    if (!domain) continue;
    const singular = domain.replace(/s$/, "");
    for (const test of apiTests) {
      const name = path.basename(test, ".test.ts");
      if (name.startsWith(domain) || name.startsWith(`${singular}-`) || name === singular) selected.add(test);
    }
  }
  return [...selected].sort();
}

/** The newest change under app/, lib/ and db/ (what the production build is made of), in ms. */
function newestSourceChange(files: string[]): number {
  return Math.max(0, ...files.filter((file) => /^(app|lib|db|components)\//.test(file)).map((file) => statSync(path.join(root, file)).mtimeMs));
}

function run(label: string, command: string, args: string[]): Promise<{ label: string; ok: boolean; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: "inherit" });
    child.on("exit", (code) => resolve({ label, ok: code === 0, ms: Date.now() - started }));
  });
}

async function main() {
  const started = Date.now();
  const sinceAt = process.argv.indexOf("--since");
  const files = changedFiles(sinceAt > 0 ? process.argv[sinceAt + 1] : undefined);
  const lintable = files.filter((file) => /\.(ts|tsx|mts|mjs|js)$/.test(file) && !file.startsWith("packages/sdk/"));
  const apiTests = readdirSync(path.join(root, "tests/api"))
    .filter((name) => name.endsWith(".test.ts"))
    .map((name) => `tests/api/${name}`);
  const selected = apiTestsFor(files, apiTests);
  console.log(`test:quick: ${files.length} changed file(s); API tests of the changed domains: ${selected.length ? selected.join(", ") : "none"}`);

  const buildId = path.join(root, ".next/BUILD_ID");
  if (selected.length > 0 && (!existsSync(buildId) || statSync(buildId).mtimeMs < newestSourceChange(files))) {
    console.error("The production build is older than your changes to app/, lib/ or db/: the API tests would test the old code. Run `npm run build` (2–4 min), then `npm run test:quick` again.");
    process.exit(1);
  }

  // Lint, typecheck and the tests side by side: each is mostly one process on one core, and on two
  // cores running them at once ends sooner than lint and typecheck first, then the tests.
  const projects = selected.length > 0 ? ["--project", "unit", "--project", "api", "tests/unit/", ...selected] : ["--project", "unit"];
  const [lint, typecheck, tests] = await Promise.all([
    lintable.length > 0 ? run("eslint (changed files)", "npx", ["eslint", "--max-warnings=0", ...lintable]) : Promise.resolve({ label: "eslint (no changed files)", ok: true, ms: 0 }),
    run("typecheck", "npm", ["run", "--silent", "typecheck"]),
    run(`vitest (unit${selected.length ? ` + ${selected.length} API file(s)` : ""})`, "npx", ["vitest", "run", ...projects]),
  ]);
  const results = [lint, typecheck, tests];
  const totalMs = Date.now() - started;
  console.log("\ntest:quick");
  for (const { label, ok, ms } of results) console.log(`  ${ok ? "ok  " : "FAIL"} ${label}: ${(ms / 1000).toFixed(1)} s`);
  console.log(`  total ${(totalMs / 1000).toFixed(1)} s (target ≤ 60 s on a quiet machine); CI runs the full \`npm test\`.`);
  process.exit(results.every((result) => result.ok) ? 0 : 1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) await main();
