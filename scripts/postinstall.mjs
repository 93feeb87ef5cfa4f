/**
 * `npm install`'s postinstall. First the dependency patches in patches/ (patch-package; why each
 * exists: docs/ARCHITECTURE.md, "Patched dependencies"): a patch that no longer applies fails the
 * install, so that a dependency upgrade cannot drop one unseen. Without patch-package (a production
 * install without dev dependencies) they are skipped with a line: they change speed, not results.
 *
 * Then it builds the embedded database's template (scripts/embedded-template.ts) so that the first
 * `npm run dev` skips initdb, run as the other scripts are (scripts/run.mjs). That part never fails
 * the install: without esbuild (no dev dependencies), on Vercel (no embedded database there) or on
 * any error it says so and the app still starts, running initdb itself as before.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let patchPackage;
try {
  patchPackage = require.resolve("patch-package");
} catch {
  console.log("Dependency patches skipped (patch-package is not installed).");
}
if (patchPackage) {
  const patched = spawnSync(process.execPath, [patchPackage, "--error-on-fail"], { stdio: "inherit" });
  if (patched.status !== 0) process.exit(patched.status ?? 1);
}

if (process.env.VERCEL) process.exit(0);
try {
  require.resolve("esbuild");
} catch {
  console.log("Embedded database template skipped (esbuild is not installed).");
  process.exit(0);
}
const result = spawnSync(process.execPath, ["scripts/run.mjs", "scripts/embedded-template.ts"], { stdio: "inherit" });
if (result.status !== 0) {
  console.log("Embedded database template not built; the first start runs initdb instead (slower, same result).");
}
