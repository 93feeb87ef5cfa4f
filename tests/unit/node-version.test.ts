import { readFileSync } from "node:fs";
import path from "node:path";
import { maxSatisfying, minVersion, satisfies } from "semver";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../helpers/server";

type PackageJson = { engines: { node: string }; devDependencies: Record<string, string> };
const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as PackageJson;
const engines = pkg.engines.node;
const target = Number(readFileSync(path.join(PROJECT_ROOT, ".node-version"), "utf8").trim().replace(/^v/, "").split(".")[0]);

describe("the supported Node.js", () => {
  it(".node-version names a maintained LTS line, and engines admits it and 22, not 20", () => {
    expect(target).toBe(24);
    expect(satisfies(`${target}.0.0`, engines)).toBe(true);
    expect(satisfies("22.12.0", engines)).toBe(true);
    expect(satisfies("20.19.0", engines)).toBe(false);
    expect(satisfies("22.11.0", engines)).toBe(false);
  });

  it("selects the target on Vercel, which deploys the newest major engines allows", () => {
    // Vercel offers whole majors (the latest patch of each); 26.x is offered too.
    const offered = ["20.99.0", "22.99.0", "24.99.0", "26.99.0"];
    expect(maxSatisfying(offered, engines)).toBe(`${target}.99.0`);
  });

  it("types Node.js's API at the target's major", () => {
    expect(minVersion(pkg.devDependencies["@types/node"] ?? "")?.major).toBe(target);
  });

  it("runs this test suite on a Node.js that engines admits (on an older one: `. scripts/use-node.sh`)", () => {
    expect(satisfies(process.versions.node, engines), `Node.js ${process.versions.node} is not ${engines}`).toBe(true);
  });
});
