import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openPgliteClient } from "@/db/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { migrate } from "drizzle-orm/pglite/migrator";
import { config } from "@/lib/config";

/**
 * A migrated, empty PGlite data directory, built once per install (`npm install` runs
 * scripts/embedded-template.ts) and copied into `.data/pglite/` when the embedded database starts
 * on an empty data directory. A fresh PGlite directory costs initdb (a second WebAssembly
 * instance, several seconds of CPU) plus every migration; a copy costs a fraction of a second, so
 * `npm run dev` on a fresh clone serves its first page sooner (docs/performance.md, "Dev mode's first page").
 *
 * The templates live under BILLING_TEMPLATE_DIR (node_modules/.cache/billing-service: a new
 * `npm install` into a fresh node_modules builds it again). The template is named by a key over PGlite's version and the migrations (drizzle's own hashes of
 * every migration file): after a `git pull` that adds a migration, or an upgrade of PGlite, the old
 * template no longer matches and is not used (the start runs initdb and the migrations as
 * before, until the next `npm install` builds the new one). A template is complete only once its
 * marker file is written (with the list of its files and their sizes), and it is moved into place
 * by a rename, so a half-built one is never seen. A template whose files no longer match its list,
 * or that fails to open, is deleted and the start falls back to initdb.
 */

const ROOT = () => path.resolve(/*turbopackIgnore: true*/ process.cwd(), config().templateDir);
const MARKER = "template.json";
const PREFIX = "pglite-";

function pgliteVersion(): string {
  try {
    const file = path.join(/*turbopackIgnore: true*/ process.cwd(), "node_modules", "@electric-sql", "pglite", "package.json");
    return (JSON.parse(readFileSync(file, "utf8")) as { version?: string }).version ?? "unknown";
  } catch {
    return "unknown";
  }
}

/** The template's key: PGlite's version and every migration (content hash and timestamp). */
export function templateKey(migrationsFolder: string): string {
  const hash = createHash("sha256").update(`pglite ${pgliteVersion()}\n`);
  for (const migration of readMigrationFiles({ migrationsFolder })) hash.update(`${migration.folderMillis} ${migration.hash}\n`);
  return hash.digest("hex").slice(0, 16);
}

export function templateDir(migrationsFolder: string): string {
  return path.join(ROOT(), `${PREFIX}${templateKey(migrationsFolder)}`);
}

function isComplete(dir: string): boolean {
  return existsSync(path.join(dir, MARKER)) && existsSync(path.join(dir, "PG_VERSION"));
}

/** Every file of a data directory (but the marker) with its size, sorted: what a template must still hold. */
function manifest(dir: string): string[] {
  const files: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const name = path.join(relative, entry.name);
      if (entry.isDirectory()) walk(name);
      else if (name !== MARKER) files.push(`${name} ${statSync(path.join(dir, name)).size}`);
    }
  };
  walk("");
  return files.sort();
}

/** A complete template whose files are all there, at the sizes they were built with. */
function isIntact(dir: string): boolean {
  if (!isComplete(dir)) return false;
  try {
    const { files } = JSON.parse(readFileSync(path.join(dir, MARKER), "utf8")) as { files?: string[] };
    return Array.isArray(files) && files.join("\n") === manifest(dir).join("\n");
  } catch {
    return false;
  }
}

/**
 * Builds the template for the current migrations unless it exists; removes templates of other
 * keys. Returns its directory and whether it was built now.
 */
export async function buildTemplate(migrationsFolder: string): Promise<{ dir: string; built: boolean }> {
  const dir = templateDir(migrationsFolder);
  if (isIntact(dir)) return { dir, built: false };
  mkdirSync(ROOT(), { recursive: true });
  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const client = await openPgliteClient(building);
  try {
    await migrate(drizzle(client), { migrationsFolder });
  } finally {
    await client.close();
  }
  rmSync(path.join(building, "postmaster.pid"), { force: true });
  const key = path.basename(dir).slice(PREFIX.length);
  writeFileSync(path.join(building, MARKER), JSON.stringify({ key, files: manifest(building) }));
  rmSync(dir, { recursive: true, force: true });
  try {
    renameSync(building, dir);
  } catch (error) {
    // Another install built it at the same time: theirs is as good.
    rmSync(building, { recursive: true, force: true });
    if (!isComplete(dir)) throw error;
  }
  for (const entry of readdirSync(ROOT())) {
    if (entry.startsWith(PREFIX) && entry !== path.basename(dir) && !entry.includes(".building-")) {
      rmSync(path.join(ROOT(), entry), { recursive: true, force: true });
    }
  }
  return { dir, built: true };
}

/**
 * Copies the current template into `dataDir` if `dataDir` holds no database yet and a complete
 * template exists. Returns whether it did; any failure leaves `dataDir` as it was (absent or empty).
 */
export function restoreTemplate(dataDir: string, migrationsFolder: string): boolean {
  if (existsSync(path.join(dataDir, "PG_VERSION"))) return false;
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) return false;
  let template: string;
  try {
    template = templateDir(migrationsFolder);
  } catch {
    return false;
  }
  if (!isComplete(template)) return false;
  if (!isIntact(template)) {
    // Truncated or missing files (an interrupted copy, a disk full): never open it.
    discardTemplate(migrationsFolder);
    return false;
  }
  const copying = `${dataDir}.restoring-${process.pid}`;
  try {
    rmSync(copying, { recursive: true, force: true });
    cpSync(template, copying, { recursive: true });
    rmSync(path.join(copying, MARKER), { force: true });
    rmSync(dataDir, { recursive: true, force: true });
    renameSync(copying, dataDir);
    return true;
  } catch {
    rmSync(copying, { recursive: true, force: true });
    return false;
  }
}

/** Deletes the current template (it failed to open), so that no later start tries it again. */
export function discardTemplate(migrationsFolder: string): void {
  try {
    rmSync(templateDir(migrationsFolder), { recursive: true, force: true });
  } catch {
    // nothing to discard
  }
}
