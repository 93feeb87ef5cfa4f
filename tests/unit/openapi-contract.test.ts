import { describe, expect, it } from "vitest";
import { formatReport } from "@/scripts/openapi/breaking";
import { checkAgainstBaseline, lintDocument } from "@/scripts/openapi/contract";

/**
 * The contract gates of `npm test` (docs/ARCHITECTURE.md, "Contract gates"): the document served at
 * /api/openapi.json passes the OpenAPI linter with the rules of redocly.yaml, and breaks nothing of
 * openapi/baseline.json that openapi/intended-breaking-changes.json does not list.
 */
// The breaking-change diff resolves every $ref of two documents twice (baseline, main): with the
// audit event types' unions it took 4–10 min on the shared 2-core machine under load (issue 26).
describe("the OpenAPI contract", { timeout: 900_000 }, () => {
  it("passes redocly lint (redocly.yaml) without a problem", () => {
    const { ok, output } = lintDocument();
    expect(ok, output).toBe(true);
  });

  it("has no unintended breaking change against openapi/baseline.json (npm run openapi:breaking)", () => {
    expect(formatReport(checkAgainstBaseline())).toEqual([]);
  });
});
