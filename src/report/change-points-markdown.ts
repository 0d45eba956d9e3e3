import { markdownTable } from "markdown-table";
import { MIN_POINTS, type ChangeSettings } from "../changes/find.js";
import type { ChangePoint, HistoryCommit, SeriesChanges } from "../publish/change-points.js";
import { escapeMarkdown } from "../render/escape.js";
import { formatPercent, plural } from "../render/format.js";
import { heading } from "../render/markdown.js";

/**
 * `proxybench changes` as markdown (pure): a headline, what was asked of Otava, one table row per
 * change point, and the series too short to tell. Every text from data.js (suite, bench, unit,
 * commit id and URL) is escaped or, a URL, linked only when it is a plain https address.
 */

export interface ChangesReport {
  /** Where the history was read, as the user named it. */
  source: string;
  settings: ChangeSettings;
  series: readonly SeriesChanges[];
}

/** How many change points are regressions and how many improvements. */
export function changeCounts(series: readonly SeriesChanges[]) {
  const all = series.flatMap((s) => s.changes);
  const regressions = all.filter((c) => c.regression).length;
  return { regressions, improvements: all.length - regressions };
}

/** A commit URL that is safe as a link target: https, and no character that ends one. */
const SAFE_URL = /^https:\/\/[A-Za-z0-9.-]+(:\d+)?\/[A-Za-z0-9._~%/+-]*$/;

function commitText(commit: HistoryCommit): string {
  const short = escapeMarkdown(commit.id.slice(0, 12));
  return commit.url !== undefined && SAFE_URL.test(commit.url) ? `[${short}](${commit.url})` : short;
}

/** A mean of a series: four significant digits, then its unit. */
export function valueText(value: number, unit: string): string {
  return `${Number(value.toPrecision(4))} ${escapeMarkdown(unit)}`;
}

function pValueText(p: number): string {
  return p >= 0.001 ? p.toFixed(3) : p.toExponential(1);
}

function changeRow(series: SeriesChanges, change: ChangePoint): string[] {
  return [
    escapeMarkdown(series.suite),
    escapeMarkdown(series.bench),
    `${commitText(change.before)} .. ${commitText(change.after)}`,
    `${change.index} of ${series.points}`,
    valueText(change.meanBefore, series.unit),
    valueText(change.meanAfter, series.unit),
    formatPercent(change.changePct),
    pValueText(change.pValue),
    change.regression ? "**regression**" : "improvement",
  ];
}

function changesTable(series: readonly SeriesChanges[]): string {
  const header = ["suite", "series", "commits", "point", "before", "after", "change", "p-value", ""];
  const rows = series.flatMap((s) => s.changes.map((c) => changeRow(s, c)));
  return markdownTable([header, ...rows], { align: ["l", "l", "l", "r", "r", "r", "r", "r", "l"] });
}

function tooShortNote(series: readonly SeriesChanges[]): string[] {
  const short = series.filter((s) => s.points < MIN_POINTS);
  if (short.length === 0) return [];
  const names = short.map((s) => `${escapeMarkdown(s.suite)}: ${escapeMarkdown(s.bench)} (${s.points})`);
  return [
    `${plural(short.length, "series", "series")} too short to tell a change from noise (fewer than ${MIN_POINTS} points, not analysed): ${names.join("; ")}.`,
  ];
}

export function renderChangesMarkdown(report: ChangesReport): string {
  const { regressions, improvements } = changeCounts(report.series);
  const analysed = report.series.filter((s) => s.points >= MIN_POINTS);
  const lines = [
    heading(
      2,
      `proxybench changes: ${plural(regressions, "regression")}, ${plural(improvements, "improvement")} in ${plural(report.series.length, "series", "series")}`,
    ),
    "",
    `History ${escapeMarkdown(report.source)}: ${plural(analysed.length, "series", "series")} analysed by Apache Otava (E-divisive means: p-value at most ${report.settings.maxPValue}, change at least ${report.settings.minChangePct}%). A change lies between the two commits shown; before and after are the means of the segments around it.`,
    "",
  ];
  if (report.series.length === 0) lines.push("The history holds no series.", "");
  else if (regressions + improvements === 0) lines.push("No change points.", "");
  else lines.push(changesTable(report.series), "");
  for (const note of tooShortNote(report.series)) lines.push(note, "");
  return `${lines.join("\n").trimEnd()}\n`;
}
