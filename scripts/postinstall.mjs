/**
 * `npm install`'s postinstall: builds the embedded database's template (scripts/embedded-template.ts)
 * so that the first `npm run dev` skips initdb. Never fails the install: without tsx (a production
 * install without dev dependencies), on Vercel (no embedded database there) or on any error it
 * says so and the app still starts, running initdb itself as before.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";

if (process.env.VERCEL) process.exit(0);
let tsx;
try {
  tsx = createRequire(import.meta.url).resolve("tsx/cli");
} catch {
  console.log("Embedded database template skipped (tsx is not installed).");
  process.exit(0);
}
const result = spawnSync(process.execPath, [tsx, "scripts/embedded-template.ts"], { stdio: "inherit" });
if (result.status !== 0) {
  console.log("Embedded database template not built; the first start runs initdb instead (slower, same result).");
}
