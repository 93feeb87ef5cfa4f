import { formatReport } from "./openapi/breaking";
import { checkAgainstBaseline, lintDocument, writeBaseline, writeDocument } from "./openapi/contract";

/**
 * The OpenAPI contract's commands (docs/ARCHITECTURE.md, "Contract gates"):
 *   write [file]  the document served at GET /api/openapi.json, to a file (default openapi.json)
 *   lint          redocly lint with redocly.yaml; fails on any problem
 *   breaking      fails on a breaking change against openapi/baseline.json not listed as intended
 *   baseline      accepts the current document as openapi/baseline.json (and empties the intended list)
 */
const [command, argument] = process.argv.slice(2);

switch (command) {
  case "write": {
    const file = argument ?? "openapi.json";
    writeDocument(file);
    console.log(`Wrote ${file}`);
    break;
  }
  case "lint": {
    const { ok, output } = lintDocument();
    console.log(output.trim());
    process.exitCode = ok ? 0 : 1;
    break;
  }
  case "breaking": {
    const report = checkAgainstBaseline();
    for (const { change, reason } of report.intended) console.log(`intended: ${change.summary} (${reason})`);
    const problems = formatReport(report);
    for (const line of problems) console.error(line);
    if (problems.length > 0) {
      console.error(
        `\n${report.unintended.length} breaking change(s) against openapi/baseline.json. If meant, list each in ` +
          "openapi/intended-breaking-changes.json ({ path, reason }); when released, `npm run openapi:baseline`.",
      );
      process.exitCode = 1;
    } else {
      console.log(`No unintended breaking change against openapi/baseline.json (${report.intended.length} intended).`);
    }
    break;
  }
  case "baseline":
    writeBaseline();
    console.log("Wrote openapi/baseline.json and emptied openapi/intended-breaking-changes.json");
    break;
  default:
    console.error("usage: node scripts/run.mjs scripts/openapi.ts write [file] | lint | breaking | baseline");
    process.exitCode = 2;
}
