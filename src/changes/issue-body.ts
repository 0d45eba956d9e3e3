import { markdownTable } from "markdown-table";
import { COMMENT_LIMIT, cutToFit } from "../github/body.js";
import { compareUrl } from "../github/identifiers.js";
import { escapeMarkdown } from "../report/escape.js";
import { formatPercent } from "../report/format.js";
import type { ChangePoint, SeriesChanges, SeriesKey } from "./types.js";

/**
 * The issue filed for a series' regressions (pure). Its body opens with two hidden markers: the
 * series it is about (`<!-- proxybench-change: SUITE/BENCH -->`, each name percent-encoded so no
 * name can end the comment or look like another series) and the change points already filed in it,
 * by their first commit after the change (`<!-- proxybench-change-filed: SHA ... -->`). A change
 * point is new while no issue of the series, open or closed, lists its commit: closing an issue
 * settles the change points it lists; a later one opens a new issue.
 */

/** The label every such issue carries: the issues are listed by it, then matched by marker. */
export const ISSUE_LABEL = "proxybench-regression";

/** GitHub's longest issue title. */
const TITLE_LIMIT = 256;

const encode = (text: string) => encodeURIComponent(text);

/** The series' marker: what finds its issue again. */
export function seriesMarker(key: SeriesKey): string {
  return `<!-- proxybench-change: ${encode(key.suite)}/${encode(key.bench)} -->`;
}

function filedMarker(ids: Iterable<string>): string {
  return `<!-- proxybench-change-filed: ${[...ids].map(encode).join(" ")} -->`;
}

/** The series an issue body is about (its encoded marker) and the change points it has filed. */
export function parseIssueBody(
  body: string | null | undefined,
): { marker: string; filed: Set<string> } | undefined {
  const text = (body ?? "").trimStart();
  const series = /^<!-- proxybench-change: [^\s/]*\/[^\s/]* -->/.exec(text);
  if (!series) return undefined;
  const filed = /<!-- proxybench-change-filed: ([^>]*) -->/.exec(text);
  const ids = (filed?.[1] ?? "").split(" ").filter((id) => id !== "");
  return { marker: series[0], filed: new Set(ids.map(safeDecode)) };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function regressions(series: SeriesChanges): ChangePoint[] {
  return series.changes.filter((c) => c.regression);
}

/**
 * A title that stays plain text: no line breaks or control characters, mentions and references
 * broken by a zero-width space (as in escape.ts), at most GitHub's 256 characters.
 */
export function issueTitle(key: SeriesKey): string {
  const text = `Performance regression: ${key.suite} / ${key.bench}`
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ")
    .replace(/@(?=\S)/g, "@\u200B")
    .replace(/#(?=\d)/g, "#\u200B");
  return text.length > TITLE_LIMIT ? `${text.slice(0, TITLE_LIMIT - 1)}…` : text;
}

/** p with two significant digits, as the chart page writes it: `0.0004`, `0.012`. */
function formatP(p: number): string {
  return String(Number(p.toPrecision(2)));
}

function formatValue(value: number, unit: string): string {
  return `${String(Number(value.toPrecision(4)))} ${escapeMarkdown(unit)}`.trim();
}

/** A commit range: a link to GitHub's comparison when there is one, else the two ids as text. */
function rangeCell(change: ChangePoint, repoUrl: string | undefined): string {
  const short = (id: string) => escapeMarkdown(id.slice(0, 12));
  const text = `${short(change.before.id)}...${short(change.after.id)}`;
  const url = compareUrl(repoUrl, change.before.id, change.after.id);
  return url ? `[${text}](${url})` : text;
}

function changeRow(change: ChangePoint, unit: string, repoUrl: string | undefined): string[] {
  return [
    rangeCell(change, repoUrl),
    new Date(change.after.date).toISOString().slice(0, 10),
    formatValue(change.meanBefore, unit),
    formatValue(change.meanAfter, unit),
    formatPercent(change.changePct),
    formatP(change.pValue),
    change.regression ? "regression" : "improvement",
  ];
}

/**
 * The body: the markers, the series named, and a table of every change point of the series (the
 * regressions filed, the improvements beside them for context), newest first.
 */
export function issueBody(series: SeriesChanges, filed: Iterable<string>, repoUrl?: string): string {
  const header = `${seriesMarker(series)}\n${filedMarker(filed)}\n`;
  const rows = [...series.changes].reverse().map((c) => changeRow(c, series.unit, repoUrl));
  const table = markdownTable([["Commits", "Date", "Before", "After", "Change", "p", "Kind"], ...rows], {
    align: ["l", "l", "r", "r", "r", "r", "l"],
  });
  const direction = series.biggerIsBetter ? "bigger is better" : "smaller is better";
  const text = [
    `The benchmark history found ${regressions(series).length === 1 ? "a regression" : "regressions"} in **${escapeMarkdown(series.bench)}** of suite **${escapeMarkdown(series.suite)}** (${direction}).`,
    "",
    table,
    "",
    `Change points found by Apache Otava (E-divisive means) over the series' ${series.points} points; ` +
      "each lies between the two commits of its range. This issue is updated when the series " +
      "shows a new regression; once closed, a later regression opens a new issue.",
  ].join("\n");
  return header + cutToFit(text, COMMENT_LIMIT - header.length);
}
