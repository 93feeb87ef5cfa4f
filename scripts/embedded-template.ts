import { MIGRATIONS_FOLDER } from "@/db/client";
import { buildTemplate } from "@/db/embedded-template";

/**
 * Builds the embedded database's migrated template under node_modules/.cache/billing-service/
 * (db/embedded-template.ts), so that the first `npm run dev` on a fresh clone skips initdb and the
 * migrations. Run by `npm install` (scripts/postinstall.mjs); harmless to run again.
 */
const started = performance.now();
const { dir, built } = await buildTemplate(MIGRATIONS_FOLDER);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(built ? `Embedded database template built in ${seconds} s: ${dir}` : `Embedded database template up to date: ${dir}`);
