import { markdownTable } from "markdown-table";
import { escapeMarkdown } from "./escape.js";
import { formatMs, formatPercent, formatPValue, formatRps } from "./format.js";
import {
  comparisonHeadline,
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
  let text = escapeMarkdown(run.runId);
  if (run.commit !== undefined) {
    text += ` (${escapeMarkdown(run.commit.slice(0, 12))}`;
    if (run.branch !== undefined) text += ` on ${escapeMarkdown(run.branch)}`;
    text += ")";
  }
  return text;
}

function formatValue(m: MetricComparison, value: number): string {
  return m.metric === "rps" ? formatRps(value) : formatMs(value);
}

function interval(m: MetricComparison): string {
  return m.ci === undefined ? "n/a" : `${formatPercent(m.ci[0])} to ${formatPercent(m.ci[1])}`;
}

/** The comparison as markdown: the headline first, then one row per cell and metric. */
export function renderComparisonMarkdown(
  comparison: Comparison,
  options: ComparisonMarkdownOptions = {},
): string {
  const level = Math.min(Math.max(options.headingLevel ?? 2, 1), 6);
  const showUnchanged = options.showUnchanged ?? true;
  const parts: string[] = [];
  parts.push(`${"#".repeat(level)} proxybench compare: ${comparisonHeadline(comparison)}`);
  parts.push(
    [
      `- **Base**: ${describeRun(comparison.base)}`,
      `- **Head**: ${describeRun(comparison.head)}`,
      `- **Method**: medians of the repetitions; change = (head - base) / base; ${Math.round(comparison.confidence * 100)}% Hodges-Lehmann interval of the change (pairwise ratios head/base); two-sided Mann-Whitney U p-value; a regression or improvement needs p < ${comparison.alpha}, |change| > ${comparison.thresholdPct}% and an interval excluding 0; unchanged when the interval lies within ±${comparison.thresholdPct}%.`,
    ].join("\n"),
  );
  if (comparison.notes.length > 0)
    parts.push(comparison.notes.map((n) => `> ${escapeMarkdown(n)}`).join("\n>\n"));

  const rows: string[][] = [];
  let hidden = 0;
  for (const cell of comparison.cells) {
    const name = `${escapeMarkdown(cell.scenario)} · ${escapeMarkdown(cell.loadLabel)} · **${escapeMarkdown(cell.proxy)}** (${escapeMarkdown(cell.engine)})`;
    for (const m of cell.metrics) {
      if (!showUnchanged && m.verdict === "unchanged") {
        hidden += 1;
        continue;
      }
      rows.push([
        name,
        m.label,
        formatValue(m, m.base.median),
        formatValue(m, m.head.median),
        m.changePct === undefined ? "n/a" : formatPercent(m.changePct),
        interval(m),
        formatPValue(m.p),
        `${m.base.n} / ${m.head.n}`,
        VERDICT_TEXT[m.verdict],
      ]);
    }
  }
  if (rows.length > 0) {
    const header = ["Cell", "Metric", "Base", "Head", "Change", "95% interval", "p", "n", "Verdict"];
    if (comparison.confidence !== 0.95) header[5] = `${Math.round(comparison.confidence * 100)}% interval`;
    parts.push(markdownTable([header, ...rows], { align: ["l", "l", "r", "r", "r", "r", "r", "r", "l"] }));
  } else if (comparison.cells.length === 0) {
    parts.push("No cell could be compared.");
  }
  if (hidden > 0) parts.push(`${hidden} unchanged metric${hidden === 1 ? "" : "s"} not shown.`);
  if (comparison.notCompared.length > 0) {
    const lines = ["Not compared:", ""];
    for (const n of comparison.notCompared) {
      lines.push(`- ${escapeMarkdown(n.id)}: ${escapeMarkdown(n.reason)}`);
    }
    parts.push(lines.join("\n"));
  }
  return `${parts.join("\n\n")}\n`;
}
