import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * `npx tsx scripts/compact-exports.ts drizzle-orm`: rewrites an installed package's `exports` map so
 * that every entry of the shape `./x` → `./x.js` (with its `.cjs` and type twins) is served by one
 * pattern, `./*`, and only the others (the root, the folders' `index` files) stay listed, as they
 * were (tests/unit/drizzle-exports-patch.test.ts resolves every subpath of the release). Node.js 24
 * parses a package's whole `exports` for every `.js` module it loads from it as ESM: drizzle-orm's
 * 179 KB map cost about 1 s of CPU per process (docs/ARCHITECTURE.md, "Patched dependencies"). Run
 * on a fresh install of a new release, then remake the patch with
 * `npx patch-package <package> --exclude '^$'`.
 */
type Conditions = Record<string, unknown>;

const fileEntry = (subpath: string): Conditions => ({
  import: { types: `${subpath}.d.ts`, default: `${subpath}.js` },
  require: { types: `${subpath}.d.cts`, default: `${subpath}.cjs` },
  types: `${subpath}.d.ts`,
  default: `${subpath}.js`,
});

const name = process.argv[2];
if (!name) throw new Error("Usage: npx tsx scripts/compact-exports.ts <package>");
const file = path.join("node_modules", name, "package.json");
const manifest = JSON.parse(readFileSync(file, "utf8")) as { exports: Record<string, Conditions> };
const compact: Record<string, Conditions> = {};
for (const [subpath, entry] of Object.entries(manifest.exports)) {
  if (subpath === "." || JSON.stringify(entry) !== JSON.stringify(fileEntry(subpath))) compact[subpath] = entry;
}
compact["./*"] = fileEntry("./*");
const before = Object.keys(manifest.exports).length;
manifest.exports = compact;
writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`${name}: ${before} exports entries → ${Object.keys(compact).length}`);
