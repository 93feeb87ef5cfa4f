import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { documentAtMain } from "@/scripts/openapi/contract";

/**
 * Which document the breaking-change check compares with besides the baseline: the one at the
 * last commit of main (as the SDK committed it), in a real git repository.
 */
const root = mkdtempSync(path.join(tmpdir(), "openapi-main-"));
const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: root, encoding: "utf8" }).trim();
const doc = (version: string) => ({ openapi: "3.1.0", info: { title: "t", version }, paths: {} });
function commitDocument(version: string): string {
  writeFileSync(path.join(root, "packages/sdk/openapi.json"), JSON.stringify(doc(version)));
  git("add", "-A");
  git("commit", "-q", "-m", version);
  return git("rev-parse", "HEAD").slice(0, 12);
}

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the document at the last commit of main", () => {
  it("is undefined outside a git repository", () => {
    expect(documentAtMain(root, doc("x"))).toBeUndefined();
  });

  it("on main as committed: the commit before HEAD; with the document changed in the tree: HEAD; on a branch: where it left main", () => {
    git("init", "-q", "-b", "main");
    mkdirSync(path.join(root, "packages/sdk"), { recursive: true });
    const first = commitDocument("1");
    const second = commitDocument("2");
    expect(documentAtMain(root, doc("2"))).toEqual({ commit: first, document: doc("1") });
    expect(documentAtMain(root, doc("3"))).toEqual({ commit: second, document: doc("2") });

    git("checkout", "-q", "-b", "feature", first);
    commitDocument("4");
    expect(documentAtMain(root, doc("4"))).toEqual({ commit: first, document: doc("1") });
  });
});
