import { markdownTable } from "markdown-table";
import { escapeMarkdown } from "../render/escape.js";
import { formatAlpha, formatConfidence, formatPercent, formatPValue, plural } from "../render/format.js";
import { formatMetric } from "./cells.js";
import {
  comparisonHeadline,
  type CellComparison,
  type Comparison,
  type MetricComparison,
  type RunInfo,
  type ShownMetric,
} from "./compare.js";
import { heading, titledList } from "../render/markdown.js";
import { DETECTION_POWER } from "../stats/paired.js";

export interface ComparisonMarkdownOptions {
  /** Level of the title heading (2 = `##`). */
  headingLevel?: number;
  /** Show unchanged metrics too (default true); a PR comment may keep only the others. */
  showUnchanged?: boolean;
}

/** A run as the comparison names it: its variant in its run id, then its commit on its branch. */
function describeRun(run: RunInfo): string {
  const id = escapeMarkdown(run.runId);
  const name = run.variant === undefined ? id : `**${escapeMarkdown(run.variant)}** in ${id}`;
  if (run.commit === undefined) return name;
  const on = run.branch === undefined ? "" : ` on ${escapeMarkdown(run.branch)}`;
  return `${name} (${escapeMarkdown(run.commit.slice(0, 12))}${on})`;
}

function verdictText(m: MetricComparison, unit: string): string {
  if (m.verdict === "regressed" || m.verdict === "improved") return `**${m.verdict}**`;
  if (m.verdict === "unchanged") return m.verdict;
  const parts: string[] = [];
  if (m.detectablePct !== undefined) parts.push(detectsText(m.detectablePct));
  if (m.more !== undefined)
    parts.push(`about ${m.more} more ${m.more === 1 ? unit.replace(/s$/, "") : unit}`);
  return parts.length === 0 ? "inconclusive" : `inconclusive (${parts.join("; ")})`;
}

/** The detectable change, labelled with its power (src/stats/paired.ts powerScale). */
function detectsText(pct: number): string {
  return `detects ±${pct.toFixed(1)}% at ${DETECTION_POWER * 100}% power`;
}

function interval(m: Pick<MetricComparison, "ci" | "ciConfidence">, mark = ""): string {
  if (m.ci === undefined) return "n/a";
  const at = m.ciConfidence === undefined ? "" : ` (${formatConfidence(m.ciConfidence)}${mark})`;
  return `${formatPercent(m.ci[0])} to ${formatPercent(m.ci[1])}${at}`;
}

function familyText(c: Comparison): string {
  return `Holm over ${c.tests} tested metrics: at most ${c.alpha} chance of any false regressed or improved in this comparison${c.planned ? ", over all its looks" : ""}; each interval is at the level Holm tested its metric at (from ${formatConfidence(c.confidence)} = 1 - ${c.alpha}/${c.tests}) and excludes 0 when Holm rejects "no change"`;
}

function methodText(c: Comparison): string {
  if (c.tests === 0) return "no cell could be compared, so no test was made.";
  if (c.mode === "unpaired") {
    return `the head run's median against the spread of past runs of the same cell (given with --history) and the base run; ${familyText(c).replace(/; each interval.*$/, "")}; regressed or improved when outside that spread and the change reaches ${c.thresholdPct}%; otherwise inconclusive. Without past runs, no verdict.`;
  }
  return `per round, the ratio head/base; the Hodges-Lehmann estimate of the ratio with its interval (exact Wilcoxon signed-rank); ${familyText(c)}; regressed or improved when Holm rejects and the change reaches ${c.thresholdPct}%; unchanged when the interval lies within ±${c.thresholdPct}%; otherwise inconclusive, with the change these rounds would find at ${DETECTION_POWER * 100}% power.`;
}

/** "Rounds: looks at 11, 14 and 17 rounds (alpha 0.0167 each); 8 cells reached 11, ..." */
function roundsText(c: Comparison): string[] {
  if (!c.planned || c.looks.length === 0) return [];
  const looks = c.looks
    .map(
      (l) =>
        `${l.rounds} rounds (alpha ${formatAlpha(l.alpha)}): ${plural(l.cells, "cell")}, ${l.decided} decided`,
    )
    .join("; ");
  return [`- **Rounds** (--repetitions auto, planned before the run): ${looks}.`];
}

/** The title, the two runs, the method, and the comparison's notes as a quote. */
function introParts(comparison: Comparison, level: number): string[] {
  const parts = [
    heading(level, `proxybench compare: ${comparisonHeadline(comparison)}`),
    [
      `- **Base**: ${describeRun(comparison.base)}`,
      `- **Head**: ${describeRun(comparison.head)}`,
      `- **Method** (${escapeMarkdown(comparison.label)}): ${methodText(comparison)}`,
      ...roundsText(comparison),
    ].join("\n"),
  ];
  if (comparison.notes.length > 0)
    parts.push(comparison.notes.map((n) => `> ${escapeMarkdown(n)}`).join("\n>\n"));
  return parts;
}

function cellName(cell: CellComparison): string {
  const on = cell.runner === undefined ? "" : ` on ${escapeMarkdown(cell.runner)}`;
  return `${escapeMarkdown(cell.scenario)} · ${escapeMarkdown(cell.loadLabel)} · **${escapeMarkdown(cell.proxy)}** (${escapeMarkdown(cell.engine)})${on}`;
}

/** Why a metric shown is not tested, and what its interval alone would find at 80% power. */
function shownText(m: ShownMetric): string {
  if (m.why.startsWith("fixed by the load")) return "not tested (fixed by the load)";
  if (m.why.startsWith("a running maximum")) return "not tested (a running maximum)";
  if (m.why.startsWith("not tested: steal")) return "not tested (steal on every round)";
  const could = m.detectablePct === undefined ? "" : `; ${detectsText(m.detectablePct)}`;
  return `not tested (--test-metrics)${could}`;
}

/** ` (2 rounds left out: steal; 1 round left out: noisy)`: the rounds a figure was not tested on. */
function stolenText(m: MetricComparison): string {
  const out = [
    ...(m.stolenRounds === undefined ? [] : [`${plural(m.stolenRounds, "round")} left out: steal`]),
    ...(m.noisyRounds === undefined ? [] : [`${plural(m.noisyRounds, "round")} left out: noisy`]),
  ];
  return out.length === 0 ? "" : ` (${out.join("; ")})`;
}

/**
 * A row of the table: a tested metric, or one shown, not tested (fixed by the load, or outside
 * --test-metrics: its interval, if any, is for that metric alone, marked so).
 */
function metricRow(name: string, m: CellComparison["metrics" | "shown"][number], paired: boolean): string[] {
  const tested = "verdict" in m ? m : undefined;
  const change = m.hlChangePct ?? m.changePct;
  return [
    name,
    m.label,
    formatMetric(m.metric, m.base.median),
    formatMetric(m.metric, m.head.median),
    change === undefined ? "n/a" : formatPercent(change),
    tested === undefined ? interval(m, " alone") : interval(tested),
    tested?.p === undefined ? "n/a" : formatPValue(tested.p),
    paired ? String(m.base.n) : `${m.base.n} / ${m.head.n}`,
    tested === undefined
      ? shownText(m)
      : verdictText(tested, paired ? "rounds" : "repetitions") + stolenText(tested),
  ];
}

/** One table row per cell and metric shown, and how many unchanged metrics were left out. */
function metricRows(comparison: Comparison, showUnchanged: boolean): { rows: string[][]; hidden: number } {
  const all = comparison.cells.flatMap((cell) =>
    [...cell.metrics, ...(showUnchanged ? cell.shown : [])].map((m) => ({ cell, m })),
  );
  const kept = all.filter(({ m }) => showUnchanged || !("verdict" in m && m.verdict === "unchanged"));
  const paired = comparison.mode === "paired";
  return {
    rows: kept.map(({ cell, m }) => metricRow(cellName(cell), m, paired)),
    hidden: all.length - kept.length,
  };
}

function metricTable(comparison: Comparison, rows: string[][]): string {
  const count = comparison.mode === "paired" ? "rounds" : "n";
  const header = ["Cell", "Metric", "Base", "Head", "Change", "Interval (level)", "p", count, "Verdict"];
  return markdownTable([header, ...rows], { align: ["l", "l", "r", "r", "r", "r", "r", "r", "l"] });
}

/** The comparison as markdown: the headline first, then one row per cell and metric. */
export function renderComparisonMarkdown(
  comparison: Comparison,
  options: ComparisonMarkdownOptions = {},
): string {
  const parts = introParts(comparison, options.headingLevel ?? 2);
  const { rows, hidden } = metricRows(comparison, options.showUnchanged ?? true);
  if (rows.length > 0) parts.push(metricTable(comparison, rows));
  else if (comparison.cells.length === 0) parts.push("No cell could be compared.");
  if (hidden > 0) parts.push(`${plural(hidden, "unchanged metric")} not shown.`);
  const excluded = comparison.notCompared.map((n) => `${escapeMarkdown(n.id)}: ${escapeMarkdown(n.reason)}`);
  if (excluded.length > 0) parts.push(titledList("Not compared:", excluded));
  return `${parts.join("\n\n")}\n`;
}
