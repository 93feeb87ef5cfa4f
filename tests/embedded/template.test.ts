import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { openPgliteClient } from "@/db/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT, startApp } from "../helpers/server";

const run = promisify(execFile);
/** Building a template and initdb take tens of seconds of CPU on a loaded machine: generous limits, no timing asserted. */
const START_MS = 240_000;
const TEST_MS = 480_000;

const dirs: string[] = [];
const tempDir = (name: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), `billing-${name}-`));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The environment of an install on this machine (not Vercel), with a template directory of our own. */
function installEnv(templateDir: string): NodeJS.ProcessEnv {
  const { VERCEL: _vercel, ...env } = process.env;
  return { ...env, DATABASE_URL: "", BILLING_TEMPLATE_DIR: templateDir } as unknown as NodeJS.ProcessEnv;
}

/** `npm install`'s postinstall, exactly as npm runs it, into a template directory of our own. */
async function buildTemplate(templateDir: string): Promise<string> {
  const { stdout } = await run(process.execPath, ["scripts/postinstall.mjs"], {
    cwd: PROJECT_ROOT,
    env: installEnv(templateDir),
  });
  expect(stdout).toContain("Embedded database template built");
  return templateIn(templateDir);
}

/** The one template a template directory holds (its name is the migrations' hash). */
function templateIn(templateDir: string): string {
  const [template] = readdirSync(templateDir);
  return path.join(templateDir, template!);
}

/**
 * The postinstall's template, built once for this file (a build is initdb and every migration in
 * PGlite: 15–25 s of CPU). The first test asserts on that build itself; the others damage a copy of
 * their own.
 */
let built: Promise<{ templateDir: string; template: string }> | undefined;
function builtTemplate(): Promise<{ templateDir: string; template: string }> {
  built ??= (async () => {
    const templateDir = tempDir("template");
    return { templateDir, template: await buildTemplate(templateDir) };
  })();
  return built;
}

async function templateCopy(): Promise<{ templateDir: string; template: string }> {
  const { templateDir: source } = await builtTemplate();
  const templateDir = tempDir("template-copy");
  cpSync(source, templateDir, { recursive: true });
  return { templateDir, template: templateIn(templateDir) };
}

/** PostgreSQL's system identifier: set by initdb, kept by every copy of a data directory. */
async function systemIdentifier(dataDir: string): Promise<string> {
  const copy = path.join(tempDir("identifier"), "pglite");
  cpSync(dataDir, copy, { recursive: true });
  const client = await openPgliteClient(copy);
  try {
    const { rows } = await client.query<{ id: string }>("select system_identifier::text as id from pg_control_system()");
    return rows[0]!.id;
  } finally {
    await client.close();
  }
}

describe("the embedded database's template (npm install's postinstall)", () => {
  it("a new data directory starts from the template, then migrates, seeds and prints the login", async () => {
    const { templateDir, template } = await builtTemplate();
    // A second install finds it up to date.
    const again = await run(process.execPath, ["scripts/postinstall.mjs"], {
      cwd: PROJECT_ROOT,
      env: installEnv(templateDir),
    });
    expect(again.stdout).toContain("Embedded database template up to date");

    const dataDir = tempDir("data");
    const app = await startApp({ DATABASE_URL: "", BILLING_DATA_DIR: dataDir, BILLING_TEMPLATE_DIR: templateDir });
    try {
      await app.waitForOutput(/sign in as demo@example\.com \/ \S+/, START_MS);
      expect(app.output()).toContain("Seeded a new embedded database");
    } finally {
      await app.stop();
    }
    expect(await systemIdentifier(path.join(dataDir, "pglite"))).toBe(await systemIdentifier(template));
    // The template itself is untouched, ready for the next data directory.
    expect(existsSync(path.join(template, "template.json"))).toBe(true);
  }, TEST_MS);

  it("a template that does not open is discarded and the start runs initdb instead", async () => {
    const { templateDir, template } = await templateCopy();
    const identifier = await systemIdentifier(template);
    // Same size, so the file list still matches: only opening it can tell.
    writeFileSync(path.join(template, "global", "pg_control"), Buffer.alloc(8192, 0x5a));

    const dataDir = tempDir("data");
    const app = await startApp({ DATABASE_URL: "", BILLING_DATA_DIR: dataDir, BILLING_TEMPLATE_DIR: templateDir });
    try {
      await app.waitForOutput(/sign in as demo@example\.com \/ \S+/, START_MS);
      expect(app.output()).toContain("template did not open");
    } finally {
      await app.stop();
    }
    expect(existsSync(template)).toBe(false);
    expect(await systemIdentifier(path.join(dataDir, "pglite"))).not.toBe(identifier);
  }, TEST_MS);

  it("a template missing a file is not opened at all", async () => {
    const { templateDir, template } = await templateCopy();
    rmSync(path.join(template, "postgresql.auto.conf"));

    const dataDir = tempDir("data");
    const app = await startApp({ DATABASE_URL: "", BILLING_DATA_DIR: dataDir, BILLING_TEMPLATE_DIR: templateDir });
    try {
      await app.waitForOutput(/sign in as demo@example\.com \/ \S+/, START_MS);
      expect(app.output()).not.toContain("template did not open");
    } finally {
      await app.stop();
    }
    expect(existsSync(template)).toBe(false);
  }, TEST_MS);
});
