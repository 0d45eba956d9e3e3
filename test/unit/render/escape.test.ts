import { describe, expect, it } from "vitest";
import { escapeHtml, escapeMarkdown, jsonForScript } from "../../../src/render/escape.js";
import { liveMarkup, visibleText } from "../../support/actions/gfm.js";

const CRAFTED = "<img src=x onerror=alert(1)>";

describe("escapeHtml", () => {
  it.each([
    [CRAFTED, "&lt;img src=x onerror=alert(1)&gt;"],
    [`"quoted" & 'single'`, "&quot;quoted&quot; &amp; &#39;single&#39;"],
    ["plain-name_1.2", "plain-name_1.2"],
  ])("%s", (input, expected) => {
    expect(escapeHtml(input)).toBe(expected);
  });
});

describe("escapeMarkdown", () => {
  it.each([
    [CRAFTED, "&lt;img src=x onerror=alert(1)&gt;"],
    ["a | b", "a \\| b"],
    ["[click](http://evil)", "\\[click\\](http:\u200B//evil)"],
    ["**bold** _it_ `code` ~~s~~", "\\*\\*bold\\*\\* \\_it\\_ \\`code\\` \\~\\~s\\~\\~"],
    ["line\nbreak\r\nagain", "line break again"],
    ["ping @octocat", "ping @\u200Boctocat"],
    ["#12 and GH-3 and https://x.example", "#\u200B12 and GH\u200B-3 and https:\u200B//x.example"],
    ["- item", "\\- item"],
    ["# title", "\\# title"],
    ["+40.00% unchanged", "+40.00% unchanged"],
    ["$x$", "\\$x\\$"],
    ["Some CPU @ 3GHz", "Some CPU @ 3GHz"],
    ["back\\slash", "back\\\\slash"],
    ["nginx-1.22 (tuned)", "nginx-1.22 (tuned)"],
    [`the generator's "core"`, `the generator's "core"`],
  ])("%j", (input, expected) => {
    expect(escapeMarkdown(input)).toBe(expected);
  });

  it("leaves no unescaped pipe, angle bracket or newline", () => {
    const out = escapeMarkdown("x|y<z>\n|</td>");
    expect(out).not.toMatch(/(^|[^\\])\|/);
    expect(out).not.toMatch(/[<>\n]/);
  });
});

/** Text from a results file that tries every way GitHub has of making plain text live. */
const HOSTILE = [
  "@octocat [approve here](https://evil.example) <img src=x>",
  "@acme/maintainers please look",
  "see #1 and acme/other#2 and GH-3",
  "https://evil.example/x www.evil.example mail@evil.example",
  "<a href=https://evil.example>x</a><script>alert(1)</script><details open>",
  "![img](https://evil.example/i.png) [ref]: https://evil.example",
  "cell | injected | row",
  "`code` ``x`` **bold** _it_ ~~gone~~ $\\sqrt{x}$",
  "# heading",
  "1. list",
  "---",
  "> quote",
  "line one\n# heading two\r\n| a | b |",
  "&#64;octocat &lt;img src=x&gt; &amp;",
  "back\\slash\\[not](a link)",
];

describe("escapeMarkdown against GitHub's rendering", () => {
  // Where a report puts a name: inline, in a table cell, a list item, a quote, a heading.
  const contexts: Array<[string, (text: string) => string]> = [
    ["inline", (t) => `Measured on **${t}** (2 cores).`],
    ["table cell", (t) => `| Proxy | p50 |\n| :-- | --: |\n| ${t} | 1.00 |`],
    ["list item", (t) => `- **${t}**: failed`],
    ["quote", (t) => `> ${t}`],
    ["heading", (t) => `### ${t}`],
  ];

  it.each(HOSTILE.flatMap((text) => contexts.map(([where, wrap]) => [where, text, wrap] as const)))(
    "%s: %j is shown as written, with nothing live",
    (_where, text, wrap) => {
      const markdown = wrap(escapeMarkdown(text));
      expect(liveMarkup(markdown)).toEqual([]);
      expect(visibleText(markdown)).toContain(text.replace(/\r\n|\n/g, " "));
    },
  );

  it("a table keeps its columns whatever a cell holds", () => {
    const markdown = `| Proxy | p50 |\n| :-- | --: |\n${HOSTILE.map((t) => `| ${escapeMarkdown(t)} | 1.00 |`).join("\n")}`;
    const cells = visibleText(markdown).split(/\s*1\.00\s*/);
    expect(cells.map((c) => c.trim()).filter((c) => c !== "")).toHaveLength(HOSTILE.length);
  });

  it("the check itself sees what is live without escaping", () => {
    expect(liveMarkup(`Measured on **${HOSTILE[0]}**.`)).toEqual([
      "tag <img src=x>",
      "link https://evil.example",
      "mention @octocat",
    ]);
    expect(liveMarkup(HOSTILE[2]!)).toEqual(["reference #1", "reference acme/other#2", "reference GH-3"]);
    expect(liveMarkup(`x ${"&#64;"}octocat`)).toEqual(["mention @octocat"]);
  });
});

describe("jsonForScript", () => {
  it("cannot close the script element and parses back to the same value", () => {
    const value = { name: "</script><script>alert(1)</script>", other: "<!-- \u2028 \u2029 & >" };
    const out = jsonForScript(value);
    expect(out).not.toMatch(/<|>|&|\u2028|\u2029/);
    expect(JSON.parse(out)).toEqual(value);
  });
});
