import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { API_OPERATIONS } from "@/lib/server/operations-index";
import { domainsInDocumentOrder, generate, manifestFolders, renderManifests, renderRoutes } from "../../scripts/registries";
import { PROJECT_ROOT } from "../helpers/server";

/*
 * `npm run registries` (scripts/registries.ts; `npm run lint` runs it with --check): the registries
 * derived from the domain folders are what the folders generate now, and a manifest's data reaches
 * each of them.
 */
describe("registries generated from the domain folders", { timeout: 60_000 }, () => {
  it("the committed files are what the folders generate (the lint's --check)", async () => {
    for (const [file, text] of Object.entries(await generate(PROJECT_ROOT))) {
      expect(readFileSync(path.join(PROJECT_ROOT, file), "utf8"), file).toBe(text);
    }
  });

  it("reads the domain folders in API_OPERATIONS' order, and the manifests in that order", () => {
    const domains = domainsInDocumentOrder(PROJECT_ROOT);
    expect(domains[0]).toEqual({ folder: "billing-status", stem: "billingStatus" });
    expect(domains.map((domain) => domain.folder)).toEqual(expect.arrayContaining(["payment-methods", "emails", "flows", "invoices"]));
    // Every operation's folder is listed once.
    expect(new Set(domains.map((domain) => domain.folder)).size).toBe(domains.length);
    expect(API_OPERATIONS.length).toBeGreaterThan(domains.length);
    const folders = manifestFolders(PROJECT_ROOT);
    expect(folders.indexOf("payment-methods")).toBeLessThan(folders.indexOf("emails"));
  });

  it("a planted manifest reaches the id prefixes, the catalogue, the descriptions, samples, the load and the schemas", () => {
    const files = renderManifests([
      {
        folder: "widgets",
        manifest: {
          ids: { widget: "wdg_" },
          events: [{ group: "Widget", aggregateType: "widget", schema: "Widget", idKind: "widget", weight: 0.2, types: { "widget.made": "A widget was made." } }],
        },
      },
    ]);
    const values = files["lib/manifests.generated.ts"]!;
    expect(values).toContain('"widget": "wdg_"');
    expect(values).toContain('{ group: "Widget", aggregateType: "widget", types: ["widget.made"] }');
    expect(values).toContain('"widget.made": "A widget was made."');
    expect(values).toContain('"widget": 0.2');
    // The values layer imports nothing.
    expect(values).not.toMatch(/^import /m);
    const schemas = files["lib/events-api/aggregate-schemas.generated.ts"]!;
    expect(schemas).toContain('import { Widget } from "@/lib/widgets/schema";');
    expect(schemas).toContain("widget: Widget,");
    const routes = renderRoutes([{ folder: "widgets", stem: "widget" }]);
    expect(routes).toContain('import { widgetHandlers } from "@/lib/widgets/handlers";');
    expect(routes).toContain("...widgetHandlers,");
  });
});
