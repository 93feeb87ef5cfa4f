import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../helpers/server";

/**
 * The lint configuration is only worth what its rules catch. Each case lints a few lines as if they
 * were a file at the given path and expects the rule to fire there: the house rules of
 * eslint.config.mjs, and the plugins eslint-config-next brings (whose peer ranges lag ESLint's
 * majors, so a plugin that silently stopped loading would otherwise pass lint by reporting nothing).
 */
const CASES: { rule: string; filePath: string; code: string }[] = [
  { rule: "@typescript-eslint/no-explicit-any", filePath: "lib/lint-probe.ts", code: "export const a = 1 as any;\n" },
  {
    rule: "@typescript-eslint/no-floating-promises",
    filePath: "lib/lint-probe.ts",
    code: "async function f(): Promise<void> {}\nexport function g(): void {\n  f();\n}\n",
  },
  {
    rule: "react-hooks/rules-of-hooks",
    filePath: "components/lint-probe.tsx",
    code: 'import { useState } from "react";\nexport function C({ on }: { on: boolean }) {\n  if (on) useState(0);\n  return null;\n}\n',
  },
  { rule: "@next/next/no-html-link-for-pages", filePath: "components/lint-probe.tsx", code: 'export function C() {\n  return <a href="/">Home</a>;\n}\n' },
  { rule: "jsx-a11y/alt-text", filePath: "components/lint-probe.tsx", code: 'export function C() {\n  return <img src="/x.png" />;\n}\n' },
  { rule: "import/no-anonymous-default-export", filePath: "lib/lint-probe.ts", code: "export default { a: 1 };\n" },
  {
    rule: "no-restricted-syntax",
    filePath: "lib/customers/lint-probe.ts",
    code: "export const now = (): Date => new Date();\n",
  },
  { rule: "no-restricted-properties", filePath: "lib/customers/lint-probe.ts", code: "export const port = process.env.PORT;\n" },
  { rule: "no-restricted-imports", filePath: "app/lint-probe.ts", code: 'import { sql } from "drizzle-orm";\nexport const q = sql`select 1`;\n' },
  { rule: "boundaries/dependencies", filePath: "lib/customers/lint-probe.ts", code: 'import { Pager } from "@/components/ui/pager";\nexport const c = Pager;\n' },
  { rule: "no-console", filePath: "lib/customers/lint-probe.ts", code: 'console.log("hello");\n' },
  // The SDK ships without the app (packages/sdk is a package of its own).
  { rule: "no-restricted-imports", filePath: "packages/sdk/src/lint-probe.ts", code: 'import { config } from "@/lib/config";\nexport const c = config;\n' },
];

// The first typed lint starts a TypeScript project service: seconds on a busy machine.
describe("lint rules fire", { timeout: 120_000 }, () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({ cwd: PROJECT_ROOT });
  });

  /** The rules (or fatal messages) reported for `code` written at `filePath`, under a name of its own. */
  async function lint(filePath: string, code: string): Promise<string[]> {
    const file = path.join(PROJECT_ROOT, filePath.replace(/(\.tsx?)$/, `-${process.pid}-${Math.random().toString(36).slice(2)}$1`));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, code);
    try {
      const [result] = await eslint.lintFiles([file]);
      return (result?.messages ?? []).map((message) => message.ruleId ?? message.message);
    } finally {
      rmSync(file, { force: true });
    }
  }

  it.each(CASES)("$rule in $filePath", async ({ rule, filePath, code }) => {
    expect(await lint(filePath, code)).toContain(rule);
  });

  it("passes a clean file of the same shapes", async () => {
    const code = 'import { useState } from "react";\nexport function C() {\n  const [n] = useState(0);\n  return <span>{n}</span>;\n}\n';
    expect(await lint("components/lint-probe.tsx", code)).toEqual([]);
  });
});
