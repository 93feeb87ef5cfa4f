/**
 * `npm run test:coverage [-- <vitest filters>]`: the line coverage of lib/ by the vitest projects.
 *
 * lib/ runs in two kinds of process: the test workers (unit, property, embedded and the helpers of
 * every project) and the apps the api tests start (`next start` on the production build, whose
 * chunks bundle lib/). Vitest's coverage sees only the first, so this script also has every app
 * write V8's coverage when it stops (`APP_COVERAGE_DIR`, tests/helpers/server.ts), unpacks the
 * build's chunks through their source maps, and reports lib/'s lines three ways: in the workers, in
 * the apps, and together (a line either ran counts once). Each figure counts the files of lib/ that
 * its processes loaded; the files that no process loaded are listed by name.
 *
 * An app killed rather than stopped (the kill -9 tests) writes nothing: those lines count only if
 * another test runs them. The Playwright runs are not included.
 *
 * Writes coverage/summary.json (the three figures) and coverage/together/ (Monocart's V8 report,
 * per file). Exits with vitest's status. `-- --report-only` makes the figures again from the last run.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import MCR from "monocart-coverage-reports";
import { isLibSource } from "../tests/setup/coverage-scope";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const out = path.join(root, "coverage");
const appData = path.join(out, "app-v8");
const workersRaw = path.join(out, "workers", "raw");
const appsRaw = path.join(out, "apps", "raw");

/** `--report-only`: the figures again from the last run's data, without building or testing. */
const reportOnly = process.argv.includes("--report-only");
const vitestArgs = process.argv.slice(2).filter((arg) => arg !== "--report-only");

function buildAndTest(): number {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(appData, { recursive: true });
  // The production build, its server unminified (next.config.ts): a minified chunk's source map
  // maps only about a quarter of lib/'s lines, and the line figures would count a sample.
  const build = spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit", env: { ...process.env, BUILD_FOR_COVERAGE: "1" } });
  if (build.status !== 0) return build.status ?? 1;
  const vitest = spawnSync(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "--coverage", ...vitestArgs], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, APP_COVERAGE_DIR: appData },
  });
  return vitest.status ?? 1;
}
const status = reportOnly ? 0 : buildAndTest();

// The apps' V8 data covers the build's chunks (.next/server, .next/dev): unpacked to lib/ by the
// source maps Next.js writes beside them.
await MCR({
  name: "lib/ in the apps",
  outputDir: path.join(out, "apps"),
  reports: ["raw"],
  entryFilter: (entry) => entry.url.includes("/.next/"),
  sourceFilter: isLibSource,
  baseDir: root,
  logging: "error",
  dataDir: appData,
}).generate();

type LineCount = { files: string[]; covered: number; total: number; pct: number };

/**
 * lib/'s line coverage from the raw data in `inputDir`: Istanbul's measure (a line counts when it
 * holds a statement), read per file from Monocart's json-summary and summed over lib/'s files. (The
 * summary's own total also counts the build's chunks that no source map unpacks, none of them lib/.)
 */
async function libLines(name: string, inputDir: string[], reports: string[]): Promise<LineCount> {
  const outputDir = path.join(out, name);
  await MCR({
    name,
    outputDir,
    inputDir,
    reports: ["json-summary", ...reports],
    sourceFilter: isLibSource,
    baseDir: root,
    logging: "error",
  }).generate();
  const perFile = JSON.parse(readFileSync(path.join(outputDir, "coverage-summary.json"), "utf8")) as Record<string, { lines: { covered: number; total: number } }>;
  const lib = Object.entries(perFile).filter(([file]) => isLibSource(file));
  const covered = lib.reduce((sum, [, summary]) => sum + summary.lines.covered, 0);
  const total = lib.reduce((sum, [, summary]) => sum + summary.lines.total, 0);
  return { files: lib.map(([file]) => file), covered, total, pct: Math.round((10_000 * covered) / total) / 100 };
}

const workers = await libLines("workers-only", [workersRaw], []);
const apps = await libLines("apps-only", [appsRaw], []);
const together = await libLines("together", [workersRaw, appsRaw], ["v8"]);
// A file no process loaded has no line in any figure: named here, so that none hides.
const loaded = new Set(together.files);
const notLoaded = readdirSync(path.join(root, "lib"), { recursive: true, encoding: "utf8" })
  .map((file) => `lib/${file}`)
  .filter((file) => /\.tsx?$/.test(file) && !loaded.has(file))
  .sort();
const figures = Object.fromEntries(Object.entries({ workers, apps, together }).map(([where, { files, ...lines }]) => [where, { ...lines, files: files.length }]));
writeFileSync(path.join(out, "summary.json"), `${JSON.stringify({ ...figures, notLoaded }, null, 2)}\n`);
for (const [where, figure] of Object.entries(figures)) {
  console.log(`lib/ lines covered, ${where}: ${figure.pct} % (${figure.covered} of ${figure.total}, in ${figure.files} files)`);
}
console.log(`lib/ files no test process loaded: ${notLoaded.length}${notLoaded.length ? ` (${notLoaded.join(", ")})` : ""}`);
console.log(`Per file: ${path.relative(root, path.join(out, "together", "index.html"))}`);
process.exit(status);
