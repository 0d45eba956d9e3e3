import { markdownTable } from "markdown-table";
import type { ChangePoint, SeriesChanges } from "../publish/change-points.js";
import { compareUrl } from "../github/identifiers.js";
import { plainTitle } from "../github/issue-body.js";
import type { IssueItem } from "../github/issues.js";
import { escapeMarkdown } from "../render/escape.js";
import { formatAlpha, formatPercent } from "../render/format.js";
import { valueText } from "./change-points-markdown.js";

/**
 * The issue of a series' regressions (pure): its title and a table of every change point of the
 * series (the regressions, and the improvements beside them for context), newest first, each
 * commit range linked to GitHub's comparison. github/issues.ts files it once per regression.
 */

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
    valueText(change.meanBefore, unit).trim(),
    valueText(change.meanAfter, unit).trim(),
    formatPercent(change.changePct),
    formatAlpha(change.pValue), // two significant digits, as the chart page writes p
    change.regression ? "regression" : "improvement",
  ];
}

export function changeIssueMarkdown(series: SeriesChanges, repoUrl?: string): string {
  const rows = [...series.changes].reverse().map((c) => changeRow(c, series.unit, repoUrl));
  const table = markdownTable([["Commits", "Date", "Before", "After", "Change", "p", "Kind"], ...rows], {
    align: ["l", "l", "r", "r", "r", "r", "l"],
  });
  const direction = series.biggerIsBetter ? "bigger is better" : "smaller is better";
  const count = series.changes.filter((c) => c.regression).length;
  return [
    `The benchmark history found ${count === 1 ? "a regression" : "regressions"} in **${escapeMarkdown(series.bench)}** of suite **${escapeMarkdown(series.suite)}** (${direction}).`,
    "",
    table,
    "",
    `Change points found by Apache Otava (E-divisive means) over the series' ${series.points} points; ` +
      "each lies between the two commits of its range. This issue is updated when the series " +
      "shows a new regression; once closed, a later regression opens a new issue.",
  ].join("\n");
}

/** The issue of a series: keyed by suite and bench, called for by each regression's commit. */
export function changeIssueItem(series: SeriesChanges, repoUrl?: string): IssueItem {
  return {
    key: [series.suite, series.bench],
    name: `${series.suite} / ${series.bench}`,
    candidates: series.changes.filter((c) => c.regression).map((c) => c.after.id),
    title: plainTitle(`Performance regression: ${series.suite} / ${series.bench}`),
    markdown: changeIssueMarkdown(series, repoUrl),
  };
}
