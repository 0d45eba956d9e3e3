import { readdirSync } from "node:fs";
import path from "node:path";

/**
 * What GitHub makes of the project's markdown: which lines are code, the anchors its headings
 * get, the relative links, the fences and tables that would not render as written. Pure.
 */

/** README.md and docs/*.md, relative to the project's root. */
export function docFiles(root: string): string[] {
  const docs = readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md"));
  return ["README.md", ...docs.sort().map((f) => `docs/${f}`)];
}

/** One line of a markdown text: 1-based number, and whether it is a fence or inside a fenced block. */
interface MarkdownLine {
  n: number;
  text: string;
  fence: boolean;
  code: boolean;
}

/** A fence: up to three spaces, then ``` or ~~~ (the info string after it). */
const FENCE = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/;

function markdownLines(markdown: string): MarkdownLine[] {
  let open = false;
  return markdown.split("\n").map((text, i) => {
    const fence = FENCE.test(text);
    if (fence) open = !open;
    return { n: i + 1, text, fence, code: open || fence };
  });
}

/**
 * The anchor GitHub gives a heading (github-slugger): the rendered text in lower case, every
 * character but letters, marks, digits, `_`, `-` and spaces dropped, each space a `-`.
 */
export function slug(heading: string): string {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/[`*]/g, "");
  return rendered
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a text's headings, a repeated one numbered as GitHub does (`inputs`, `inputs-1`). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of markdownLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line.text);
    if (line.code || !heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

/** A link of a markdown text: where it is and its target (`file#anchor`, `#anchor`, a URL). */
export interface MarkdownLink {
  line: number;
  target: string;
}

/** Inline links and images outside code (fenced blocks and code spans). */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const lines = markdownLines(markdown);
  // Code becomes spaces, so that offsets keep their line and nothing in code reads as a link.
  const prose = lines
    .map((l) =>
      l.code ? " ".repeat(l.text.length) : l.text.replace(/`[^`]*`/g, (s) => " ".repeat(s.length)),
    )
    .join("\n");
  const links: MarkdownLink[] = [];
  for (const m of prose.matchAll(/\[[^\]]*\]\(\s*([^)\s]+)(?:\s+"[^"]*")?\s*\)/g)) {
    links.push({ line: prose.slice(0, m.index).split("\n").length, target: m[1]! });
  }
  return links;
}

/**
 * Fences GitHub would pair otherwise than meant: a block opened and closed at once (a doubled
 * fence, after which every later fence opens what it meant to close), or a block never closed.
 */
export function fenceProblems(markdown: string): string[] {
  const lines = markdownLines(markdown);
  const problems: string[] = [];
  let openedAt: number | undefined;
  for (const [i, line] of lines.entries()) {
    if (!line.fence) continue;
    if (openedAt === undefined) {
      openedAt = line.n;
      continue;
    }
    if (lines[i - 1]?.n === openedAt) problems.push(`${openedAt}: an empty fenced block (a doubled fence)`);
    openedAt = undefined;
  }
  if (openedAt !== undefined) problems.push(`${openedAt}: a fenced block that is never closed`);
  return problems;
}

/** Lines GitHub reads as one more row of the table above them: text right under a table, no blank line between. */
export function tableRunOns(markdown: string): number[] {
  const lines = markdownLines(markdown);
  const isRow = (l: MarkdownLine | undefined) =>
    l !== undefined && !l.code && l.text.trimStart().startsWith("|");
  return lines
    .filter((l, i) => !l.code && l.text.trim() !== "" && !isRow(l) && isRow(lines[i - 1]))
    .map((l) => l.n);
}

/** A markdown table: its header cells and each row's cells, with the row's line number. */
export interface MarkdownTable {
  header: string[];
  rows: Array<{ line: number; cells: string[] }>;
}

/** The cells of a table row; `\|` stays inside its cell. */
export function tableCells(row: string): string[] {
  const cells = row
    .trim()
    .replace(/^\||\|$/g, "")
    .split(/(?<!\\)\|/);
  return cells.map((c) => c.trim().replace(/\\\|/g, "|"));
}

/** Every table of a text outside code, in order. */
function markdownTables(markdown: string): Array<MarkdownTable & { line: number }> {
  const tables: Array<MarkdownTable & { line: number }> = [];
  let current: (MarkdownTable & { line: number }) | undefined;
  for (const line of markdownLines(markdown)) {
    const row = !line.code && line.text.trimStart().startsWith("|");
    if (!row) {
      current = undefined;
      continue;
    }
    if (!current) {
      current = { line: line.n, header: tableCells(line.text), rows: [] };
      tables.push(current);
    } else if (!/^\|?[\s:|-]+$/.test(line.text.trim())) {
      current.rows.push({ line: line.n, cells: tableCells(line.text) });
    }
  }
  return tables;
}

/** The first table after `heading` (a line of the text) whose header satisfies `fits`. */
export function tableAfter(
  markdown: string,
  heading: string,
  fits: (header: string[]) => boolean,
): MarkdownTable & { line: number } {
  const at = markdown.split("\n").indexOf(heading);
  if (at < 0) throw new Error(`no line '${heading}'`);
  const table = markdownTables(markdown).find((t) => t.line > at + 1 && fits(t.header));
  if (!table) throw new Error(`no table after '${heading}'`);
  return table;
}
