import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { operationLine, operationPath } from "@/lib/operation-paths";

/*
 * No hand-written `/api/…` paths: callers reach the API through the typed client (the dashboard's
 * dashboardCall, the SDK's createCall) or derive a path for people to read from the generated
 * operations list (lib/operation-paths.ts). This scans every tracked source file for string and
 * template literals that contain `/api/`.
 */

const SOURCE = /\.(ts|tsx|js|mjs|cjs)$/;
// A quote or backtick, then text up to `/api/` (not `lib/api/`, an import path, nor `next/api/`…).
const API_PATH_LITERAL = /["'`][^"'`]*(?<![\w@-])\/api\//;
const COMMENT_LINE = /^\s*(\/\/|\*|\/\*)/;

/** Lines of one file's text holding an `/api/…` literal, 1-based. */
function apiPathLines(text: string): number[] {
  return text.split("\n").flatMap((line, index) => (!COMMENT_LINE.test(line) && API_PATH_LITERAL.test(line) ? [index + 1] : []));
}

/** Files (or folders, ending in `/`) where a literal `/api/…` is the point, each with why. */
const ALLOWED: Record<string, string> = {
  "packages/sdk/src/generated/": "the generated operations list and schema are where the paths are declared",
  "components/auth/password-sign-in.ts": "next-auth's own /api/auth/* routes (csrf, credentials callback), not API operations",
  "lib/http/guard.ts": "the request guard tells API requests from pages by the /api prefix",
  "lib/api/limits.ts": "the body limit of the Inngest route (/api/inngest), not an API operation",
  "lib/api/handler.ts": "the router's own problem text naming the account-scoped path pattern",
  "instrumentation-node.ts": "a start-up log line naming the cron routes' prefix",
  "tests/unit/api-paths.test.ts": "this test's own fixtures",
  // Tests that call no operation but assert the texts the server writes, or leave the contract on purpose.
  "tests/unit/": "unit tests assert what the server writes (a problem's `instance`, a replacement's name) and what a loopback server receives; they call no API",
  "tests/api/framework-refusals.test.ts": "raw requests to the framework's own routes and malformed URLs, off the contract on purpose",
  "tests/api/hostile-input.test.ts": "malformed percent-encodings sent raw, which no typed client can build",
  "tests/api/upload-memory.test.ts": "chunked raw-socket uploads to the API, next-auth and Inngest routes",
  "tests/api/change-plan-deprecation.test.ts": "asserts the problem's `instance`, the path the server reports",
  "tests/api/idempotency.test.ts": "asserts the stored fingerprint, computed over the request path",
  "tests/api/capability-limits.test.ts": "raw requests to the capability pages, the hosted invoice's /api route among them: one per-address count the pages share",
  "e2e/first-sign-in.spec.ts": "intercepts next-auth's /api/auth/callback route, not an API operation",
  "e2e/reference.spec.ts": "asserts the paths and curl lines the reference page shows",
  // The benchmarks' load generators (autocannon) take raw URLs per request; deriving them from
  // operationPath() is a worthwhile follow-up, but they are measurement tools, not callers of record.
  "bench/": "load-generator URLs, kept raw (see above)",
};

/*
 * TEMPORARY: the API tests and the e2e specs are being moved to the typed test client on branch
 * `test-client`. The integrator removes these two entries when that branch lands.
 */

const allowed = (file: string) =>
  Object.keys(ALLOWED).some((entry) => (entry.endsWith("/") ? file.startsWith(entry) : file === entry));

describe("hand-written /api/ paths", () => {
  it("finds a literal path and leaves import paths and comments alone", () => {
    const text = [
      'import { handle } from "@/lib/api/handler";',
      "// GET /api/customers is documented here",
      'const a = fetch("/api/customers");',
      "const b = `${origin}/api/${id}/events`;",
      'const c = "Create one with POST /api/invoices";',
    ].join("\n");
    expect(apiPathLines(text)).toEqual([3, 4, 5]);
  });

  it("derives readable paths from the operations list", () => {
    expect(operationPath("getCustomer", { account_id: "acc_1", customer_id: "cus 1" })).toBe("/api/acc_1/customers/cus%201");
    expect(operationLine("createCustomerForTokenAccount")).toBe("POST /api/customers");
  });

  it("appear in no tracked source file outside the allow-list", () => {
    const files = execFileSync("git", ["ls-files"], { encoding: "utf8" })
      .split("\n")
      .filter((file) => SOURCE.test(file) && !allowed(file));
    const found = files.flatMap((file) => {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch {
        return []; // listed by git but deleted in the working tree
      }
      return apiPathLines(text).map((line) => `${file}:${line}`);
    });
    expect(found).toEqual([]);
  });

  it("allows only files that exist", () => {
    const tracked = execFileSync("git", ["ls-files"], { encoding: "utf8" }).split("\n");
    const stale = Object.keys(ALLOWED).filter((entry) => !tracked.some((file) => (entry.endsWith("/") ? file.startsWith(entry) : file === entry)));
    expect(stale).toEqual([]);
  });
});
