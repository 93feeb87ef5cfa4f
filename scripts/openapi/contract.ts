import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openApiDocument } from "@/lib/server/openapi";
import { checkBreakingChanges, type BreakingReport, type IntendedChange } from "./breaking";

/** The contract gates' files (docs/ARCHITECTURE.md, "Contract gates"). */
const ROOT = path.resolve(import.meta.dirname, "../..");
export const BASELINE_FILE = path.join(ROOT, "openapi/baseline.json");
export const INTENDED_FILE = path.join(ROOT, "openapi/intended-breaking-changes.json");
const REDOCLY_CONFIG = path.join(ROOT, "redocly.yaml");
const REDOCLY_CLI = path.join(ROOT, "node_modules/@redocly/cli/bin/cli.js");

type JsonObject = Record<string, unknown>;

/** The document as GET /api/openapi.json serves it, as plain JSON. */
export function currentDocument(): JsonObject {
  return JSON.parse(JSON.stringify(openApiDocument())) as JsonObject;
}

export function writeDocument(file: string, document: JsonObject = currentDocument()): void {
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
}

/** `redocly lint` of the current document with the rules of redocly.yaml; ok only without any problem. */
export function lintDocument(): { ok: boolean; output: string } {
  const directory = mkdtempSync(path.join(tmpdir(), "openapi-lint-"));
  try {
    const file = path.join(directory, "openapi.json");
    writeDocument(file);
    const run = spawnSync(process.execPath, [REDOCLY_CLI, "lint", "--config", REDOCLY_CONFIG, file], {
      encoding: "utf8",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

interface IntendedFile {
  $comment?: string;
  changes: IntendedChange[];
}

const INTENDED_COMMENT =
  "Breaking changes against openapi/baseline.json that are meant: { path (as `npm run openapi:breaking` prints it; * one segment, ** any), reason }. `npm run openapi:baseline` empties this list.";

export function readIntended(): IntendedChange[] {
  return (JSON.parse(readFileSync(INTENDED_FILE, "utf8")) as IntendedFile).changes;
}

const SERVED_DOCUMENT = "packages/sdk/openapi.json";

/**
 * The document at the last commit of `main` before this change: the copy the SDK commits of it
 * (`packages/sdk/openapi.json`, kept equal to the document by `npm run sdk:generate -- --check`).
 * On a branch, where it left `main`; on `main` with the document changed in the working tree,
 * `HEAD`; on `main` as committed, the commit before `HEAD`. Undefined outside a git checkout or
 * before the SDK existed.
 */
export function documentAtMain(root = ROOT, current: JsonObject = currentDocument()): { commit: string; document: JsonObject } | undefined {
  const git = (...args: string[]) => {
    const run = spawnSync("git", args, { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    return run.status === 0 ? run.stdout.trim() : "";
  };
  const head = git("rev-parse", "--verify", "-q", "HEAD");
  const main = git("rev-parse", "--verify", "-q", "origin/main") || git("rev-parse", "--verify", "-q", "main");
  if (!head || !main) return undefined;
  let base = git("merge-base", "HEAD", main);
  if (base === head) {
    const committed = git("show", `HEAD:${SERVED_DOCUMENT}`);
    const changedHere = !committed || JSON.stringify(JSON.parse(committed)) !== JSON.stringify(current);
    base = changedHere ? head : git("rev-parse", "--verify", "-q", "HEAD^1");
  }
  const shown = base ? git("show", `${base}:${SERVED_DOCUMENT}`) : "";
  return shown ? { commit: base.slice(0, 12), document: JSON.parse(shown) as JsonObject } : undefined;
}

/**
 * The current document against the committed baseline (the contract as last released) and against
 * the document at the last commit of `main`, less the intended changes: a break of either fails.
 * An intended entry is stale only when it matches nothing in both.
 */
export function checkAgainstBaseline(): BreakingReport {
  const current = currentDocument();
  const intended = readIntended();
  const baseline = JSON.parse(readFileSync(BASELINE_FILE, "utf8")) as JsonObject;
  const atMain = documentAtMain(ROOT, current);
  // A fresh copy for each comparison: api-smart-diff resolves references in the documents it is given.
  const reports = [baseline, ...(atMain ? [atMain.document] : [])].map((before) =>
    checkBreakingChanges(before, structuredClone(current), intended),
  );
  const unique = <T>(items: T[], key: (item: T) => string) => [...new Map(items.map((item) => [key(item), item])).values()];
  return {
    unintended: unique(reports.flatMap((report) => report.unintended), (change) => `${change.path} ${change.summary}`),
    intended: unique(reports.flatMap((report) => report.intended), ({ change }) => `${change.path} ${change.summary}`),
    invalidEntries: reports[0]!.invalidEntries.filter(({ entry, problem }) =>
      reports.every((report) => report.invalidEntries.some((other) => other.entry === entry && other.problem === problem)),
    ),
  };
}

/** Accepts the current document as the contract: the new baseline, and no intended changes left to list. */
export function writeBaseline(): void {
  writeDocument(BASELINE_FILE);
  const intended: IntendedFile = { $comment: INTENDED_COMMENT, changes: [] };
  writeFileSync(INTENDED_FILE, `${JSON.stringify(intended, null, 2)}\n`);
}
