import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * drizzle-orm's `exports` map, compacted by patches/drizzle-orm+0.45.4.patch (docs/ARCHITECTURE.md,
 * "Patched dependencies"): its 447 entries, one per module, became the package root, one entry per
 * folder (`./pg-core` → `./pg-core/index.js`) and one pattern for the files (`./*` → `./*.js`).
 * Node.js 24 parses a package's whole `exports` again for every `.js` module it loads as ESM from
 * it; at 179 KB that was about 1 s of CPU in every process that imports drizzle-orm (each
 * `next start`, script and test worker). Every subpath the release exported must still resolve to
 * the same files, under `import` and under `require`.
 */
const require = createRequire(import.meta.url);
const root = path.dirname(require.resolve("drizzle-orm"));

/**
 * Every subpath the release exports: each module that ships both builds, by file or by folder. Where
 * a file and a folder share a name (`pg-core/utils.js`, `pg-core/utils/index.js`), the release
 * exported the folder.
 */
function releasedSubpaths(): { subpath: string; esm: string; cjs: string }[] {
  const found = new Map<string, { esm: string; cjs: string; folder: boolean }>();
  const add = (subpath: string, esm: string, folder: boolean) => {
    if (found.get(subpath)?.folder && !folder) return;
    found.set(subpath, { esm, cjs: esm.replace(/\.js$/, ".cjs"), folder });
  };
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) {
        walk(full);
        continue;
      }
      if (!name.endsWith(".js") || !existsSync(full.replace(/\.js$/, ".cjs"))) continue;
      const relative = path.relative(root, full).replace(/\.js$/, "");
      if (relative === "index") add("drizzle-orm", full, true);
      else if (relative.endsWith("/index")) add(`drizzle-orm/${relative.slice(0, -"/index".length)}`, full, true);
      else add(`drizzle-orm/${relative}`, full, false);
    }
  };
  walk(root);
  return [...found].map(([subpath, { esm, cjs }]) => ({ subpath, esm, cjs }));
}

describe("drizzle-orm's exports, patched to a compact map", () => {
  it("is applied: the root, the folders and one pattern, not an entry per module", () => {
    const exportsMap = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).exports as Record<string, unknown>;
    expect(Object.keys(exportsMap)).toContain("./*");
    expect(Object.keys(exportsMap).length).toBeLessThan(100);
  });

  it("resolves every module the release ships to the same file, as ESM and as CommonJS", () => {
    const subpaths = releasedSubpaths();
    // The release exported 447 subpaths; each is one of these.
    expect(subpaths).toHaveLength(447);
    for (const { subpath, esm, cjs } of subpaths) {
      expect(import.meta.resolve(subpath), subpath).toBe(pathToFileURL(esm).href);
      expect(require.resolve(subpath), subpath).toBe(cjs);
    }
  });
});
