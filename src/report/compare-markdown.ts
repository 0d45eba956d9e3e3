import { markdownTable } from "markdown-table";
import { escapeMarkdown } from "./escape.js";
import { formatMetric, formatPercent, formatPValue } from "./format.js";
import {
  comparisonHeadline,
  formatConfidence,
  type CellComparison,
  type Comparison,
  type MetricComparison,
  type RunInfo,
  type Verdict,
} from "./compare.js";

export interface ComparisonMarkdownOptions {
  /** Level of the title heading (2 = `##`). */
  headingLevel?: number;
  /** Show unchanged metrics too (default true); a PR comment may keep only the others. */
  showUnchanged?: boolean;
}

const VERDICT_TEXT: Record<Verdict, string> = {
  regressed: "**regressed**",
  improved: "**improved**",
  unchanged: "unchanged",
  inconclusive: "inconclusive",
};

function describeRun(run: RunInfo): string {
  let text =
    run.variant === undefined
      ? escapeMarkdown(run.runId)
      : `**${escapeMarkdown(run.variant)}** in ${escapeMarkdown(run.runId)}`;
  if (run.commit !== undefined) {
    text += ` (${escapeMarkdown(run.commit.slice(0, 12))}`;
    if (run.branch !== undefined) text += ` on ${escapeMarkdown(run.branch)}`;
    text += ")";
  }
  return text;
}

function verdictText(m: MetricComparison, unit: string): string {
  if (m.verdict !== "inconclusive" || m.more === undefined) return VERDICT_TEXT[m.verdict];
  return `inconclusive (about ${m.more} more ${m.more === 1 ? unit.replace(/s$/, "") : unit})`;
}

function interval(m: MetricComparison): string {
  return m.ci === undefined ? "n/a" : `${formatPercent(m.ci[0])} to ${formatPercent(m.ci[1])}`;
}

function methodText(c: Comparison): string {
  if (c.tests === 0) return "no cell could be compared, so no test was made.";
  const level = formatConfidence(c.confidence);
  const test =
    c.mode === "paired"
      ? `per round, the ratio head/base; the Hodges-Lehmann estimate of the ratio with its ${level} interval (exact Wilcoxon signed-rank)`
      : `the Hodges-Lehmann estimate of the ratio head/base with its ${level} interval (Mann-Whitney U)`;
  return `${test}, ${level} = 1 - ${c.alpha}/${c.tests} for ${c.tests} tested metrics (Bonferroni: at most ${c.alpha} chance of any false verdict in this comparison); regressed or improved when the interval excludes 0 and the change reaches ${c.thresholdPct}%; unchanged when the interval lies within ±${c.thresholdPct}%; otherwise inconclusive.`;
}

/** The title, the two runs, the method, and the comparison's notes as a quote. */
function introParts(comparison: Comparison, level: number): string[] {
  const parts = [
    `${"#".repeat(level)} proxybench compare: ${comparisonHeadline(comparison)}`,
    [
      `- **Base**: ${describeRun(comparison.base)}`,
      `- **Head**: ${describeRun(comparison.head)}`,
      `- **Method** (${escapeMarkdown(comparison.label)}): ${methodText(comparison)}`,
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

/** One table row per cell and metric shown, and how many unchanged metrics were left out. */
function metricRows(comparison: Comparison, showUnchanged: boolean): { rows: string[][]; hidden: number } {
  const rows: string[][] = [];
  let hidden = 0;
  for (const cell of comparison.cells) {
    const name = cellName(cell);
    for (const m of cell.metrics) {
      if (!showUnchanged && m.verdict === "unchanged") {
        hidden += 1;
        continue;
      }
      rows.push([
        name,
        m.label,
        formatMetric(m.metric, m.base.median),
        formatMetric(m.metric, m.head.median),
        m.hlChangePct === undefined ? "n/a" : formatPercent(m.hlChangePct),
        interval(m),
        formatPValue(m.p),
        comparison.mode === "paired" ? String(m.n) : `${m.base.n} / ${m.head.n}`,
        verdictText(m, comparison.mode === "paired" ? "rounds" : "repetitions"),
      ]);
    }
  }
  return { rows, hidden };
}

function metricTable(comparison: Comparison, rows: string[][]): string {
  const header = [
    "Cell",
    "Metric",
    "Base",
    "Head",
    "Change",
    `${formatConfidence(comparison.confidence)} interval`,
    "p",
    comparison.mode === "paired" ? "rounds" : "n",
    "Verdict",
  ];
  return markdownTable([header, ...rows], { align: ["l", "l", "r", "r", "r", "r", "r", "r", "l"] });
}

function notComparedList(comparison: Comparison): string {
  const lines = ["Not compared:", ""];
  for (const n of comparison.notCompared) {
    lines.push(`- ${escapeMarkdown(n.id)}: ${escapeMarkdown(n.reason)}`);
  }
  return lines.join("\n");
}

/** The comparison as markdown: the headline first, then one row per cell and metric. */
export function renderComparisonMarkdown(
  comparison: Comparison,
  options: ComparisonMarkdownOptions = {},
): string {
  const level = Math.min(Math.max(options.headingLevel ?? 2, 1), 6);
  const parts = introParts(comparison, level);
  const { rows, hidden } = metricRows(comparison, options.showUnchanged ?? true);
  if (rows.length > 0) parts.push(metricTable(comparison, rows));
  else if (comparison.cells.length === 0) parts.push("No cell could be compared.");
  if (hidden > 0) parts.push(`${hidden} unchanged metric${hidden === 1 ? "" : "s"} not shown.`);
  if (comparison.notCompared.length > 0) parts.push(notComparedList(comparison));
  return `${parts.join("\n\n")}\n`;
}
