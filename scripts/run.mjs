/**
 * `node scripts/run.mjs scripts/seed.ts [args…]`: runs a command-line script that loads lib/ (the
 * `npm run` commands seed, db:migrate, user:create, …) as one esbuild bundle, with the packages
 * left in node_modules, instead of through tsx, which compiles and resolves some 350 modules one
 * by one on every run, in a second Node process (docs/testing.md, "The command-line scripts").
 *
 * The bundle is kept in node_modules/.cache/scripts/ with the hash of every file esbuild read to
 * make it (the bytes it compiled, captured as it read them, so an edit during a build cannot be
 * recorded as built), of tsconfig.json, package.json and package-lock.json, of this file and of
 * esbuild's version. A run hashes those files again (a few milliseconds) and builds again when
 * any differs, so the bundle is never older than the sources. Each build writes a bundle of its
 * own name, then the manifest naming it (a rename, the one step that publishes a build): two runs
 * that build at once each run a whole bundle of the sources its manifest hashes. Bundles no
 * manifest names are removed a minute after they are replaced.
 *
 * A module's `import.meta.url`, `.filename` and `.dirname` name its own source file, as under tsx.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CACHE = path.join(ROOT, "node_modules", ".cache", "scripts");
const LOADERS = { ".ts": "ts", ".tsx": "tsx", ".js": "js", ".mjs": "js", ".cjs": "js", ".json": "json" };

const [scriptArgument, ...scriptArgs] = process.argv.slice(2);
if (!scriptArgument) {
  console.error("Usage: node scripts/run.mjs scripts/<name>.ts [arguments…]");
  process.exit(2);
}
const entry = path.resolve(ROOT, scriptArgument);
const require = createRequire(import.meta.url);
const esbuildVersion = require("esbuild/package.json").version;
const key = path.relative(ROOT, entry).replace(/[\\/]/g, "__").replace(/\.[cm]?tsx?$/, "");
const manifestFile = path.join(CACHE, `${key}.json`);

const sha1 = (bytes) => createHash("sha1").update(bytes).digest("hex");
/** What a bundle depends on besides its inputs: this runner and the compiler. */
const builder = `${sha1(readFileSync(fileURLToPath(import.meta.url)))} esbuild ${esbuildVersion}`;

function readFileOrNull(file) {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}

/** The cached bundle's file when this builder made it from the files as they are now. */
function freshBundle() {
  const manifest = readFileOrNull(manifestFile);
  if (!manifest) return null;
  const { builtBy, bundle, inputs } = JSON.parse(manifest.toString());
  if (builtBy !== builder) return null;
  for (const [file, hash] of Object.entries(inputs)) {
    const bytes = readFileOrNull(path.join(ROOT, file));
    if (!bytes || sha1(bytes) !== hash) return null;
  }
  return path.join(CACHE, bundle);
}

/**
 * Node's ES module resolver takes no extensionless deep import of a package without an `exports`
 * map (`nodemailer/lib/mail-composer`); tsx and bundlers do. Such a specifier is written out as
 * the file it resolves to; every other package import stays as written.
 */
function externalSpecifier(specifier, importer) {
  const parts = specifier.split("/");
  const nameLength = specifier.startsWith("@") ? 2 : 1;
  if (parts.length <= nameLength) return specifier;
  const name = parts.slice(0, nameLength).join("/");
  const fromImporter = createRequire(importer);
  let packageJson;
  try {
    packageJson = fromImporter.resolve(`${name}/package.json`);
  } catch {
    return specifier;
  }
  if (JSON.parse(readFileSync(packageJson, "utf8")).exports) return specifier;
  const file = fromImporter.resolve(specifier);
  return `${name}/${path.relative(path.dirname(packageJson), file).split(path.sep).join("/")}`;
}

/**
 * A module's `import.meta.url`, `.filename` and `.dirname`, which in a bundle would all name the
 * bundle, written as its own source file's: a script finds the project from where it lives.
 */
function withOwnLocation(bytes, file) {
  const source = bytes.toString("utf8");
  if (!source.includes("import.meta.")) return bytes;
  const location = { url: pathToFileURL(file).href, filename: file, dirname: path.dirname(file) };
  return source.replace(/\bimport\.meta\.(url|filename|dirname)\b/g, (_, property) => JSON.stringify(location[property]));
}

/** Builds the bundle, publishes it and returns its file. */
async function build() {
  const esbuild = await import("esbuild");
  const bundleFile = path.join(CACHE, `${key}.${process.pid}-${Date.now()}.mjs`);
  const inputs = {};
  await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    tsconfig: path.join(ROOT, "tsconfig.json"),
    outfile: bundleFile,
    sourcemap: "linked",
    logLevel: "error",
    // The bundled CommonJS code's require() of a package.
    banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
    plugins: [
      {
        name: "packages-external",
        setup(pluginBuild) {
          pluginBuild.onResolve({ filter: /^[^./]/ }, (args) => {
            if (args.path.startsWith("@/")) return undefined; // tsconfig's paths: our own code
            if (args.path.startsWith("node:")) return { path: args.path, external: true };
            return { path: externalSpecifier(args.path, args.importer), external: true };
          });
        },
      },
      {
        name: "record-inputs",
        setup(pluginBuild) {
          pluginBuild.onLoad({ filter: /\.([cm]?[jt]sx?|json)$/ }, async (args) => {
            const bytes = await readFile(args.path);
            inputs[path.relative(ROOT, args.path)] = sha1(bytes);
            return { contents: withOwnLocation(bytes, args.path), loader: LOADERS[path.extname(args.path)] ?? "js" };
          });
        },
      },
    ],
  });
  // What the bundle's imports were resolved by: tsconfig.json's paths, package.json, and the
  // installed packages' versions (a deep import is written as the file it resolved to).
  for (const file of ["tsconfig.json", "package.json", "package-lock.json"]) {
    const bytes = readFileOrNull(path.join(ROOT, file));
    if (bytes) inputs[file] = sha1(bytes);
  }
  const temporary = `${bundleFile}.manifest`;
  writeFileSync(temporary, JSON.stringify({ builtBy: builder, bundle: path.basename(bundleFile), inputs }));
  renameSync(temporary, manifestFile);
  // A run that read the previous manifest a moment ago may still be about to import its bundle.
  const replacedBefore = Date.now() - 60_000;
  for (const name of readdirSync(CACHE)) {
    const file = path.join(CACHE, name);
    if (name.startsWith(`${key}.`) && !file.startsWith(bundleFile) && name !== path.basename(manifestFile) && statSync(file).mtimeMs < replacedBefore) rmSync(file, { force: true });
  }
  return bundleFile;
}

const bundleFile = freshBundle() ?? (await build());
process.setSourceMapsEnabled(true);
// The script reads its own arguments as if it had been started directly.
process.argv = [process.argv[0], entry, ...scriptArgs];
await import(pathToFileURL(bundleFile).href);
