/**
 * Writes the SDK's generated files from the OpenAPI document: packages/sdk/openapi.json (the
 * document as served) and packages/sdk/src/generated/schema.ts (its types, by openapi-typescript).
 * `--check` writes nothing and exits 1 when a committed file differs from what the document
 * generates now (the stale check of `npm test`).
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { sdkFiles } from "@/packages/sdk/generate";

const root = path.resolve(import.meta.dirname, "..");
const check = process.argv.includes("--check");

const stale: string[] = [];
for (const file of await sdkFiles()) {
  const target = path.join(root, file.path);
  if (check) {
    const committed = await readFile(target, "utf8").catch(() => "");
    if (committed !== file.contents) stale.push(file.path);
  } else {
    await writeFile(target, file.contents);
    console.log(`wrote ${file.path}`);
  }
}
if (stale.length > 0) {
  console.error(`Stale generated SDK files (run \`npm run sdk:generate\`): ${stale.join(", ")}`);
  process.exit(1);
}
