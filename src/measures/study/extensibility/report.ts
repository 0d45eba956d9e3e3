import { markdownTable } from "markdown-table";
import type { CellStatus, CpuLayout, Results } from "../../../results/schema.js";
import { withChanges } from "../../../report/model.js";
import { stealRuleOf } from "../../../stats/steal.js";
import { compareVariants, type MetricComparison } from "../../../report/compare.js";
import { escapeMarkdown } from "../../../render/escape.js";
import { formatPercent, plural } from "../../../render/format.js";
import { heading } from "../../../render/markdown.js";
import { describeLoad, renderGroupNotes, renderLatencyTableMarkdown } from "../../../report/markdown.js";
import { cellColumn, type ReportColumn, type ReportGroup } from "../../../report/model.js";
import { formatCpuLayout } from "../../../runner/cpus.js";
import { DEFAULT_ALPHA } from "../../../stats/tested-metrics.js";
import type { StudyManifest } from "../schema.js";
import { BASELINE } from "./options.js";

/**
 * The extensibility study's report (pure): one table per test and gateway in the seed's
 * layout, a row per option (baseline first, then config, script, each coprocessor), each
 * latency figure with its (+delta ms) against the baseline; blank rows say why. Under each
 * table, each option's paired verdict against the baseline.
 */

export interface TestRun {
  test: string;
  gateway: string;
  /** The options measured, in row order (the baseline comes first, implied). */
  options: string[];
  skipped: Array<{ option: string; reason: string }>;
  /** The variant run's folder and results, when there was something to measure. */
  dir?: string;
  results?: Results;
}

export interface ExtensibilityReportInput {
  study: StudyManifest;
  runs: TestRun[];
  skippedGateways: Array<{ proxy: string; reason: string }>;
  limits: {
    memoryLimitBytes: number;
    coprocessorCores: number[];
    layout: CpuLayout;
    /** How the cap is held (`prlimit --data` natively). */
    how: string;
  };
  /** Heading level of the title (default 2). */
  headingLevel?: number;
}

/** The report group of one run: a column per variant, named by its option (pure). */
export function testGroup(run: TestRun): ReportGroup {
  const cells = run.results?.cells ?? [];
  const unmeasured = (proxy: string, status: CellStatus, reason: string) =>
    ({ proxy, status, reasons: [reason], repetitions: 0 }) satisfies ReportColumn;
  const columns: ReportColumn[] = [
    ...[BASELINE, ...run.options].map((option) => {
      const cell = cells.find((c) => c.variant === option);
      if (cell) return { ...cellColumn(cell), proxy: option };
      return unmeasured(option, "failed", "not measured (the run stopped before it)");
    }),
    ...run.skipped.map((s) => unmeasured(s.option, "skipped", s.reason)),
  ];
  const base = columns[0];
  const group: ReportGroup = { scenario: run.test, baseline: BASELINE, columns };
  const first = cells[0];
  if (first) {
    group.load = first.load;
    group.engine = first.engine;
  }
  if (base?.status !== "ok") group.baselineProblem = `the baseline is ${base?.status ?? "missing"}`;
  return withChanges([group], cells, run.results ? stealRuleOf(run.results) : undefined)[0]!;
}

function limitsText(input: ExtensibilityReportInput): string {
  const mib = Math.round(input.limits.memoryLimitBytes / 2 ** 20);
  return (
    `Cores: ${formatCpuLayout(input.limits.layout)}, coprocessor=${input.limits.coprocessorCores.join("+")}; ` +
    `gateway and coprocessor each capped at ${mib} MiB of data memory (${input.limits.how}).`
  );
}

/** The whole report as markdown. */
export function renderExtensibilityReport(input: ExtensibilityReportInput): string {
  const { study } = input;
  const level = input.headingLevel ?? 2;
  const parts = [
    heading(level, `${escapeMarkdown(study.title)} (study ${escapeMarkdown(study.name)})`),
    `Reproduces ${escapeMarkdown(study.source.title)} (seed ${escapeMarkdown(study.source.seed)}). ${limitsText(input)}`,
  ];
  for (const s of input.skippedGateways)
    parts.push(`- **${escapeMarkdown(s.proxy)}** not measured here: ${escapeMarkdown(s.reason)}`);
  for (const run of input.runs) {
    const group = testGroup(run);
    parts.push(heading(level + 1, `${escapeMarkdown(run.test)} · ${escapeMarkdown(run.gateway)}`));
    if (run.results === undefined) {
      parts.push("Nothing to compare here: no extension option of this gateway does this test.");
      parts.push(
        run.skipped.map((s) => `- **${escapeMarkdown(s.option)}**: ${escapeMarkdown(s.reason)}`).join("\n"),
      );
      continue;
    }
    if (group.load)
      parts.push(
        `Load: ${escapeMarkdown(describeLoad(group.load))} (${escapeMarkdown(group.engine ?? "")}).`,
      );
    parts.push(renderLatencyTableMarkdown(group, "Type"));
    const notes = renderGroupNotes(group);
    if (notes.length > 0) parts.push(notes.join("\n"));
    parts.push(...renderVerdicts(run.results, run.options));
    if (run.dir) parts.push(`Results: ${escapeMarkdown(run.dir)}.`);
  }
  return `${parts.join("\n\n")}\n`;
}

/** The latency metrics a verdict is shown for, in the table's order. */
const VERDICT_METRICS = ["mean", "p50", "p99"] as const;

/**
 * Each option against the baseline, paired by round (src/report/compare.ts): the change of
 * mean, p50 and p99 with its verdict. The false-alarm rate is held at DEFAULT_ALPHA over the
 * whole table (Bonferroni over the options as compareVariants does over the metrics), so a
 * table of seven options is no more likely to cry wolf than one of one.
 */
export function renderVerdicts(results: Results, options: readonly string[]): string[] {
  const measured = options.filter((o) => results.cells.some((c) => c.variant === o));
  if (measured.length === 0) return [];
  const alpha = DEFAULT_ALPHA / measured.length;
  const rows: string[][] = [];
  const notes = new Set<string>();
  let rounds = 0;
  for (const option of measured) {
    const comparison = compareVariants(results, { base: BASELINE, head: option, alpha });
    comparison.notes.forEach((n) => notes.add(n));
    const cell = comparison.cells[0];
    if (cell === undefined) {
      const reason = comparison.notCompared.map((n) => n.reason).join("; ") || "not measured";
      rows.push([option, ...VERDICT_METRICS.map(() => `not compared: ${reason}`)]);
      continue;
    }
    rounds = Math.max(rounds, cell.metrics[0]?.n ?? 0);
    rows.push([option, ...VERDICT_METRICS.map((m) => verdictCell(cell.metrics.find((x) => x.metric === m)))]);
  }
  const header = ["Type", "Mean", "p50", "p99"];
  const intro =
    `Against the baseline, paired by round (${rounds} rounds; exact Wilcoxon signed-rank, Hodges-Lehmann ` +
    `estimate of the change): at most ${DEFAULT_ALPHA} chance of any false verdict in this table.`;
  const parts = [intro, markdownTable([header, ...rows.map((r) => r.map(escapeMarkdown))])];
  if (notes.size > 0) parts.push([...notes].map((n) => `> ${escapeMarkdown(n)}`).join("\n>\n"));
  return parts;
}

function verdictCell(m: MetricComparison | undefined): string {
  if (m === undefined) return "n/a";
  const change = m.hlChangePct === undefined ? "" : `${formatPercent(m.hlChangePct)} `;
  // Where no interval exists at all (too few rounds), the note under the table says how many
  // rounds would do; each cell saying it again would only crowd the table.
  const decidable = m.ci !== undefined;
  const more =
    m.verdict === "inconclusive" && m.more !== undefined && decidable
      ? ` (about ${plural(m.more, "more round")})`
      : "";
  return `${change}${m.verdict}${more}`;
}
