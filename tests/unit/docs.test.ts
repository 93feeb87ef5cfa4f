import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../helpers/server";

/**
 * The documentation a newcomer reads: a short README whose two commands are the ones CI and
 * package.json run, links that lead somewhere, current rules and figures under headings that
 * name a topic rather than the issue or the day that produced them, and code comments whose
 * docs references still resolve.
 */

const README_MAX_BYTES = 15_360;

const read = (relative: string) => readFileSync(path.join(PROJECT_ROOT, relative), "utf8");

function markdownFiles(): string[] {
  const inDir = (dir: string) =>
    existsSync(path.join(PROJECT_ROOT, dir))
      ? readdirSync(path.join(PROJECT_ROOT, dir))
          .filter((name) => name.endsWith(".md"))
          .map((name) => `${dir}/${name}`)
      : [];
  return ["README.md", ...inDir("docs"), ...inDir("docs/rules"), ...inDir("docs/history")];
}

/** The rule pages: one per domain, beside the topic guides. */
function rulePages(): string[] {
  return markdownFiles().filter((file) => file.startsWith("docs/rules/"));
}

/** The entries of a file's "## Contents" section: the link targets it lists. */
function contentsEntries(markdown: string): string[] {
  const start = markdown.indexOf("## Contents");
  if (start === -1) return [];
  const next = markdown.indexOf("\n## ", start + 1);
  const contents = markdown.slice(start, next === -1 ? undefined : next);
  return [...contents.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1] ?? "");
}

/** The "## " sections of a file, Contents aside. */
function sections(markdown: string): string[] {
  return headings(markdown).filter((heading) => heading !== "Contents" && markdown.includes(`\n## ${heading}\n`));
}

/** The lines outside fenced code blocks (a `# comment` in a shell block is not a heading). */
function proseLines(markdown: string): string[] {
  let fenced = false;
  const lines: string[] = [];
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) lines.push(line);
  }
  return lines;
}

function headings(markdown: string): string[] {
  return proseLines(markdown)
    .map((line) => /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1])
    .filter((heading): heading is string => heading !== undefined);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/`/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, "")
    .replace(/ /g, "-");
}

/** Every anchor a file offers, with GitHub's -1, -2 … for repeated headings. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const heading of headings(markdown)) {
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    result.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return result;
}

/** Relative link targets of the prose (images included), without inline code spans. */
function relativeLinks(markdown: string): string[] {
  const prose = proseLines(markdown).join("\n").replace(/`[^`\n]*`/g, "``");
  const targets = [...prose.matchAll(/!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? "");
  return targets.filter((target) => target !== "" && !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe("the README", () => {
  const readme = read("README.md");

  it(`stays under ${README_MAX_BYTES} bytes`, () => {
    expect(statSync(path.join(PROJECT_ROOT, "README.md")).size).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  it("says up front that live payments are recorded until Stripe is connected, and sandbox methods simulate cards", () => {
    const beforeQuickStart = readme.slice(0, readme.indexOf("## Quick start"));
    expect(beforeQuickStart).toMatch(/recorded out of\s+band/);
    expect(beforeQuickStart).toMatch(/no payment processor is\s+connected/);
    expect(beforeQuickStart).toMatch(/docs\/payments\.md/);
    expect(beforeQuickStart).toMatch(/simulate\s+cards/);
  });

  it("gives exactly two quick-start commands, the ones package.json and .ci/run run", () => {
    const start = readme.indexOf("## Quick start");
    expect(start).toBeGreaterThan(-1);
    const next = readme.indexOf("\n## ", start + 1);
    const section = readme.slice(start, next === -1 ? undefined : next);
    const blocks = [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => (m[1] ?? "").trim());
    expect(blocks).toEqual(["npm install && npm run dev", "npm install && npm test"]);

    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
    expect(scripts.dev).toBe("next dev");
    expect(scripts.test).toMatch(/vitest run/);

    // CI's last command is the README's test command, byte for byte.
    const ciCommands = read(".ci/run")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#"));
    expect(ciCommands.at(-1)).toBe(blocks[1]);
  });

  it("links every topic doc", () => {
    for (const topic of ["api", "billing", "webhooks", "receiving-webhooks", "dashboard", "deploy", "operations", "security", "performance", "decisions", "ARCHITECTURE", "STYLE"]) {
      expect(relativeLinks(readme), topic).toContain(`docs/${topic}.md`);
    }
  });
});

describe("links in README.md and docs/", () => {
  const files = markdownFiles();

  it("finds the docs", () => {
    expect(files).toEqual(expect.arrayContaining(["README.md", "docs/decisions.md", "docs/performance.md", "docs/history/decisions-log.md", "docs/rules/api.md", "docs/rules/invoices.md"]));
  });

  it.each(files)("%s: every relative link reaches a file, and its anchor a heading there", (file) => {
    const problems: string[] = [];
    const markdown = read(file);
    for (const link of relativeLinks(markdown)) {
      const [target = "", anchor] = link.split("#", 2);
      const resolved = target === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(target)));
      if (!existsSync(path.join(PROJECT_ROOT, resolved))) {
        problems.push(`${link}: no file ${resolved}`);
        continue;
      }
      if (anchor === undefined || anchor === "" || !resolved.endsWith(".md")) continue;
      if (!anchors(read(resolved)).has(anchor.toLowerCase())) problems.push(`${link}: no heading #${anchor} in ${resolved}`);
    }
    expect(problems).toEqual([]);
  });
});

describe("current rules and figures", () => {
  const issueOrDate =
    /\bissues?\b\D{0,3}\d|#\d+|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}\b|\b\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b/i;

  it.each(["docs/decisions.md", "docs/performance.md", ...rulePages()])("%s: no heading names an issue or a date", (file) => {
    const offending = headings(read(file)).filter((heading) => issueOrDate.test(heading));
    expect(offending).toEqual([]);
  });

  it("the pattern catches the headings of a work log", () => {
    for (const heading of ["Issue 13: routing", "Production hardening (issue 12)", "Quiet runs (2026-11-23, 17:09–17:40 UTC)", "Fix for #42", "Run of Nov 23"]) {
      expect(issueOrDate.test(heading), heading).toBe(true);
    }
    expect(issueOrDate.test("List totals (every list but the events')")).toBe(false);
  });

  it("decisions.md is the index of the rule pages: every page and every section of each is listed", () => {
    const index = read("docs/decisions.md");
    const entries = contentsEntries(index);
    expect(rulePages().length).toBeGreaterThan(10);
    expect(entries.length).toBeGreaterThan(20);
    const missing: string[] = [];
    for (const page of rulePages()) {
      const relative = page.slice("docs/".length);
      if (!entries.includes(relative)) missing.push(relative);
      // Every section is listed, so a reader finds each rule by its topic.
      for (const section of sections(read(page))) {
        if (!entries.includes(`${relative}#${slug(section)}`)) missing.push(`${relative}#${slug(section)}`);
      }
    }
    expect(missing).toEqual([]);
  });

  const severalSections = rulePages().filter((page) => sections(read(page)).length > 1);
  it.each(severalSections)("%s: a page of several sections opens with a table of contents listing each, in order", (page) => {
    const markdown = read(page);
    const own = sections(markdown);
    const entries = contentsEntries(markdown);
    expect(entries.map((entry) => entry.replace(/^#/, ""))).toEqual(own.map(slug));
  });

  it("performance.md gives each figure a date and a command", () => {
    const rows = proseLines(read("docs/performance.md")).filter((line) => /^\|/.test(line) && !/^\|\s*-/.test(line));
    const [header, ...figures] = rows;
    expect(header).toMatch(/Measured.*Command/);
    expect(figures.length).toBeGreaterThan(10);
    for (const row of figures) {
      const cells = row.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim());
      expect(cells.at(-2), row).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(cells.at(-1), row).toMatch(/`[^`]+`|same run as above/);
    }
  });
});

describe("docs references in code", () => {
  const SOURCE = /\.(ts|tsx|mjs)$/;
  /** The repository's files (tracked, or new and not ignored): generated files such as next-env.d.ts are not ours. */
  function sources(): string[] {
    const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: PROJECT_ROOT, encoding: "utf8" });
    return listed.split("\n").filter((file) => SOURCE.test(file) && existsSync(path.join(PROJECT_ROOT, file)));
  }

  it("every docs/ path a comment, message or import names exists, and so does the section it quotes", () => {
    const problems: string[] = [];
    for (const file of sources()) {
      const text = read(file);
      for (const match of text.matchAll(/(?<![\w./-])docs\/[\w./-]*[\w/]/g)) {
        const named = match[0];
        const exists = [named, `${named}.ts`].some((candidate) => existsSync(path.join(PROJECT_ROOT, candidate)));
        if (!exists) problems.push(`${file}: ${named}`);
      }
      for (const match of text.matchAll(/(docs\/[\w./-]+\.md)[,\s(]{1,3}\\?"([^"\\]+)\\?"/g)) {
        const [, doc = "", quoted = ""] = match;
        if (!existsSync(path.join(PROJECT_ROOT, doc))) continue;
        // A quote may wrap across comment lines; prose wraps too: compare with whitespace collapsed.
        const flat = (words: string) => words.replace(/\s*\n\s*(?:\*\s*|\/\/\s*)?/g, " ").replace(/\s+/g, " ").toLowerCase();
        const wanted = flat(quoted.replace(/…$/, ""));
        if (!flat(read(doc)).includes(wanted)) problems.push(`${file}: "${quoted}" not in ${doc}`);
      }
    }
    expect(problems).toEqual([]);
  });
});
