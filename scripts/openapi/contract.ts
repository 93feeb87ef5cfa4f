import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openApiDocument } from "@/lib/openapi";
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

/** The current document against the committed baseline, less the intended changes. */
export function checkAgainstBaseline(): BreakingReport {
  const baseline = JSON.parse(readFileSync(BASELINE_FILE, "utf8")) as JsonObject;
  return checkBreakingChanges(baseline, currentDocument(), readIntended());
}

/** Accepts the current document as the contract: the new baseline, and no intended changes left to list. */
export function writeBaseline(): void {
  writeDocument(BASELINE_FILE);
  const intended: IntendedFile = { $comment: INTENDED_COMMENT, changes: [] };
  writeFileSync(INTENDED_FILE, `${JSON.stringify(intended, null, 2)}\n`);
}
