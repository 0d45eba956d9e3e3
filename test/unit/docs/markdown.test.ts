import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import {
  anchors,
  docFiles,
  fenceProblems,
  markdownLinks,
  slug,
  tableRunOns,
} from "../../support/docs/markdown.js";

// README.md and docs/*.md render on GitHub as written: every relative link and #anchor lands,
// every fenced block closes where it is meant to, and no paragraph is read as a table's row.

const files = docFiles(PROJECT_ROOT);
const text = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), "utf8");

/** What is wrong with one link of `file`: the file it names is missing, or the file has no such heading. */
function linkProblem(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:
  const [pathPart = "", anchor] = target.split("#", 2);
  const resolved =
    pathPart === ""
      ? path.join(PROJECT_ROOT, file)
      : path.resolve(PROJECT_ROOT, path.dirname(file), pathPart);
  if (!resolved.startsWith(PROJECT_ROOT) || !existsSync(resolved)) return `${target}: no such file`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith(".md")) return `${target}: an anchor into a file that is not markdown`;
  const known = anchors(readFileSync(resolved, "utf8"));
  return known.has(anchor) ? undefined : `${target}: no heading makes #${anchor}`;
}

describe("the relative links of README.md and docs/*.md", () => {
  it.each(files)("%s: each names a file that exists and, after #, a heading of it", (file) => {
    const links = markdownLinks(text(file));
    const problems = links.flatMap((l) => {
      const problem = linkProblem(file, l.target);
      return problem === undefined ? [] : [`${file}:${l.line}: ${problem}`];
    });
    expect(problems).toEqual([]);
  });

  it("are found, anchors included", () => {
    const all = files.flatMap((f) => markdownLinks(text(f)).map((l) => l.target));
    expect(all.filter((t) => t.includes("#")).length).toBeGreaterThan(20);
    expect(all).toContain("docs/actions.md#self-hosted-runner-checklist");
  });
});

describe("the fences and tables of README.md and docs/*.md", () => {
  it.each(files)("%s: every fenced block closes, none is empty (a doubled fence)", (file) => {
    expect(fenceProblems(text(file)).map((p) => `${file}:${p}`)).toEqual([]);
  });

  it.each(files)("%s: a blank line ends every table (a line right under one is read as its row)", (file) => {
    expect(tableRunOns(text(file)).map((n) => `${file}:${n}`)).toEqual([]);
  });
});

describe("reading markdown as GitHub does", () => {
  it("a heading's anchor: lower case, punctuation dropped, each space a hyphen, repeats numbered", () => {
    expect(slug("Validity, measured: `npm run bench:ab`")).toBe("validity-measured-npm-run-benchab");
    expect(slug("TLS: `run --tls` and the run's certificates")).toBe(
      "tls-run---tls-and-the-runs-certificates",
    );
    expect(slug("`bench-instructions.yml`: counted, on hosted runners")).toBe(
      "bench-instructionsyml-counted-on-hosted-runners",
    );
    expect(slug("static-header · nginx")).toBe("static-header--nginx");
    expect(slug("A [linked](x.md) **word** with_underscore")).toBe("a-linked-word-with_underscore");
    expect([...anchors("# Inputs\n\n```\n# not a heading\n```\n## Inputs\n### Inputs\n")]).toEqual([
      "inputs",
      "inputs-1",
      "inputs-2",
    ]);
  });

  it("links outside code only, with their lines", () => {
    const md = ["See [a](a.md#x) and `[b](b.md)`.", "```", "[c](c.md)", "```", "[d] (d.md)"].join("\n");
    expect(markdownLinks(md)).toEqual([{ line: 1, target: "a.md#x" }]);
    expect(markdownLinks("[two\nlines](t.md)")).toEqual([{ line: 1, target: "t.md" }]);
  });

  it("a doubled fence, an unclosed one and a paragraph glued to a table are found", () => {
    expect(fenceProblems("```\n```\ntext\n```\n```\n")).toEqual([
      "1: an empty fenced block (a doubled fence)",
      "4: an empty fenced block (a doubled fence)",
    ]);
    expect(fenceProblems("```sh\nls\n```\n```\nopen\n")).toEqual(["4: a fenced block that is never closed"]);
    expect(tableRunOns("| a |\n| --- |\n| 1 |\nglued\n\n| b |\n| --- |\n\napart\n")).toEqual([4]);
  });
});
