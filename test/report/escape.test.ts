import { describe, expect, it } from "vitest";
import { escapeHtml, escapeMarkdown, jsonForScript } from "../../src/report/escape.js";

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
    ["[click](http://evil)", "\\[click\\](http://evil)"],
    ["**bold** _it_ `code` ~~s~~", "\\*\\*bold\\*\\* \\_it\\_ \\`code\\` \\~\\~s\\~\\~"],
    ["line\nbreak\r\nagain", "line break again"],
    ["ping @octocat", "ping &#64;octocat"],
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

describe("jsonForScript", () => {
  it("cannot close the script element and parses back to the same value", () => {
    const value = { name: "</script><script>alert(1)</script>", other: "<!-- \u2028 \u2029 & >" };
    const out = jsonForScript(value);
    expect(out).not.toMatch(/<|>|&|\u2028|\u2029/);
    expect(JSON.parse(out)).toEqual(value);
  });
});
