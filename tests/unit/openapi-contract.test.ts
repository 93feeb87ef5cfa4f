import { describe, expect, it } from "vitest";
import { formatReport } from "@/scripts/openapi/breaking";
import { checkAgainstBaseline, lintDocument } from "@/scripts/openapi/contract";

/**
 * The contract gates of `npm test` (docs/ARCHITECTURE.md, "Contract gates"): the document served at
 * /api/openapi.json passes the OpenAPI linter with the rules of redocly.yaml, and breaks nothing of
 * openapi/baseline.json that openapi/intended-breaking-changes.json does not list.
 */
// api-smart-diff's cost grows with the distance between the documents (every changed component is
// compared): 620 s under load against a baseline a dozen releases old, about 60 s under the same load
// against a recent one (docs/ARCHITECTURE.md, "Contract gates"). The bound stops a hang; it does not measure.
describe("the OpenAPI contract", { timeout: 900_000 }, () => {
  it("passes redocly lint (redocly.yaml) without a problem", () => {
    const { ok, output } = lintDocument();
    expect(ok, output).toBe(true);
  });

  it("has no unintended breaking change against openapi/baseline.json (npm run openapi:breaking)", () => {
    expect(formatReport(checkAgainstBaseline())).toEqual([]);
  });
});
