import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gunzipSync } from "node:zlib";
import { csvHeader, csvText, type ExportColumns } from "@/lib/api/export";
import { gzipped, releaseOnceWritten } from "@/lib/api/export-body";
import { actorTypeEnum } from "@/db/schema/events";
import { AGGREGATE_TYPES, EVENT_TYPES } from "@/lib/events/catalogue";
import { API_OPERATIONS } from "@/lib/server/operations-index";
import { PROJECT_ROOT } from "../helpers/server";

/** Every export operation with its CSV columns (defineExportOperation). */
const EXPORTS = API_OPERATIONS.flatMap((operation) =>
  "exportColumns" in operation ? [{ path: operation.path, columns: csvHeader(operation.exportColumns as ExportColumns<never>) }] : [],
);

describe("export columns", () => {
  it("docs/api.md lists each export's CSV columns as its operation declares them", () => {
    const whole = readFileSync(path.join(PROJECT_ROOT, "docs/api.md"), "utf8");
    const doc = whole.slice(whole.indexOf("\n## Exports\n"), whole.indexOf("\n## ", whole.indexOf("\n## Exports\n") + 1));
    const table = new Map(
      [...doc.matchAll(/^\| `([a-z-]+)`[^|]*\| ([a-z0-9_, ]+) \|$/gm)].map(([, name, columns]) => [name!, columns!.split(", ")]),
    );
    expect(EXPORTS.map(({ path: p }) => p).sort()).toEqual(
      [
        ...["customers", "subscriptions", "invoices", "credit-notes", "payment-intents", "refunds", "events"].map((name) => `/{account_id}/${name}/export`),
        "/{account_id}/meters/{meter_id}/usage-events/export",
      ].sort(),
    );
    for (const { path: p, columns } of EXPORTS) {
      // The list's last segment: `/{account_id}/meters/{meter_id}/usage-events/export` is `usage-events`.
      const name = p.split("/").at(-2)!;
      expect({ name, columns: table.get(name) }).toEqual({ name, columns });
    }
  });

  it("CSV is RFC 4180 with formulas escaped, numbers and booleans as they are", () => {
    expect(csvText([["a", 'say "hi"', "x,y", "two\nlines", "=1+1", "+1", "-x", "@a", "\tt", "\rr", -5, true, false, null]])).toBe(
      'a,"say ""hi""","x,y","two\nlines",\'=1+1,\'+1,\'-x,\'@a,\'\tt,"\'\rr",-5,true,false,\r\n',
    );
  });
});

const ACTOR_TYPES = actorTypeEnum.enumValues;

describe("the events CSV's plain cells (lib/events-api/service.ts)", () => {
  it("every event type and aggregate type is in the alphabet that needs neither quoting nor a formula's escape", () => {
    // The database writes these cells as they are: csv-stringify would leave each unchanged.
    for (const name of [...EVENT_TYPES, ...AGGREGATE_TYPES, ...ACTOR_TYPES]) {
      expect(name).toMatch(/^[a-z][a-z0-9_.]*$/);
      expect(csvText([[name]])).toBe(`${name}\r\n`);
    }
  });
});

describe("an export's gzip (lib/api/export-body.ts)", () => {
  it("releases each marked chunk once the gzip has consumed it, and the body is whole", async () => {
    const chunks = [Buffer.from(new TextEncoder().encode("a,b\r\n".repeat(10_000)).buffer), Buffer.from(new TextEncoder().encode("c,d\r\n".repeat(10_000)).buffer)];
    const marked = chunks.map((chunk) => releaseOnceWritten(chunk));
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of marked) controller.enqueue(chunk);
        controller.close();
      },
    });
    const body = Buffer.from(await new Response(gzipped(source)).arrayBuffer());
    expect(gunzipSync(body).toString()).toBe("a,b\r\n".repeat(10_000) + "c,d\r\n".repeat(10_000));
    // Released: their memory detached, not left for a collection.
    for (const chunk of marked) expect((chunk.buffer as ArrayBuffer).detached).toBe(true);
  });
});
