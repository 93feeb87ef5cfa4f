import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { check, readGraph, valueImports } from "../../scripts/import-graph";
import { PROJECT_ROOT } from "../helpers/server";

/**
 * `npm run graph:check` (part of `npm run lint`) is only worth what it catches: no file-level
 * import cycle, static or dynamic, and no set of more than three lib/ folders that import each
 * other (docs/ARCHITECTURE.md, "Layers"). Each case plants a violation in an in-memory copy of a
 * file (nothing is written) and expects the check to fail.
 */
const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), "utf8");

describe("import graph", { timeout: 60_000 }, () => {
  it("reads value imports only: static, re-exports and dynamic import(), not type-only ones", () => {
    const code = [
      'import { a } from "@/lib/a";',
      'import type { B } from "@/lib/b";',
      'import { type C } from "@/lib/c";',
      'import { type D, d } from "@/lib/d";',
      'export { e } from "./e";',
      'export type { F } from "./f";',
      'export async function g() { return import("@/lib/g"); }',
      'import "@/lib/h";',
    ].join("\n");
    expect(valueImports("lib/x.ts", code).sort()).toEqual(["./e", "@/lib/a", "@/lib/d", "@/lib/g", "@/lib/h"]);
  });

  it("passes the code as it is", () => {
    const report = check(readGraph(PROJECT_ROOT));
    expect(report.fileCycles).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it("fails on a planted dynamic import that closes a file cycle", () => {
    // lib/config.ts imports lib/time.ts; a dynamic import back is a cycle all the same.
    const planted = `${read("lib/time.ts")}\nexport const later = () => import("@/lib/config");\n`;
    const report = check(readGraph(PROJECT_ROOT, { "lib/time.ts": planted }));
    expect(report.ok).toBe(false);
    expect(report.fileCycles.some((cycle) => cycle.includes("lib/time.ts") && cycle.includes("lib/config.ts"))).toBe(true);
  });

  it("fails on a planted static import from the job providers back up to a domain", () => {
    // The job providers are handed their work (lib/jobs/work.ts); importing it closes the old cycle.
    const planted = `import { createCustomer } from "@/lib/customers/service";\n${read("lib/jobs/embedded.ts")}\nexport const c = createCustomer;\n`;
    const report = check(readGraph(PROJECT_ROOT, { "lib/jobs/embedded.ts": planted }));
    expect(report.ok).toBe(false);
    expect(report.fileCycles.length).toBeGreaterThan(0);
  });

  it("fails on a planted folder cycle of more than three lib/ folders, even without a file cycle", () => {
    // A new file nothing imports: no file cycle, but jobs → customers → events → jobs ties folders together.
    const planted = 'import { createCustomer } from "@/lib/customers/service";\nexport const c = createCustomer;\n';
    const report = check(readGraph(PROJECT_ROOT, { "lib/jobs/graph-probe.ts": planted }));
    expect(report.fileCycles).toEqual([]);
    expect(report.ok).toBe(false);
    expect(report.folderSccs[0]).toEqual(expect.arrayContaining(["lib/jobs/", "lib/customers/", "lib/events/"]));
  });
});
