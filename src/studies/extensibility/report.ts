import type { CpuLayout, Results } from "../../results/schema.js";
import { escapeMarkdown } from "../../report/escape.js";
import { describeLoad, renderGroupNotes, renderLatencyTableMarkdown } from "../../report/markdown.js";
import { cellColumn, type ReportColumn, type ReportGroup } from "../../report/model.js";
import { formatCpuLayout } from "../../runner/cpus.js";
import type { StudyManifest } from "../schema.js";
import { BASELINE } from "./options.js";

/**
 * The extensibility study's report (pure): one table per test and gateway in the seed's
 * layout, a row per option (baseline first, then config, script, each coprocessor), each
 * latency figure with its (+delta ms) against the baseline; blank rows say why.
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
  limits: { memoryLimitBytes: number; coprocessorCores: number[]; layout: CpuLayout };
}

/** The report group of one run: a column per variant, named by its option (pure). */
export function testGroup(run: TestRun): ReportGroup {
  const cells = run.results?.cells ?? [];
  const columns: ReportColumn[] = [];
  for (const option of [BASELINE, ...run.options]) {
    const cell = cells.find((c) => c.variant === option);
    if (cell) columns.push({ ...cellColumn(cell), proxy: option });
    else
      columns.push({
        proxy: option,
        status: "failed",
        reasons: ["not measured (the run stopped before it)"],
        repetitions: 0,
      });
  }
  for (const s of run.skipped)
    columns.push({ proxy: s.option, status: "skipped", reasons: [s.reason], repetitions: 0 });
  const base = columns[0];
  const group: ReportGroup = { scenario: run.test, baseline: BASELINE, columns };
  const first = cells[0];
  if (first) {
    group.load = first.load;
    group.engine = first.engine;
  }
  if (base?.status !== "ok") group.baselineProblem = `the baseline is ${base?.status ?? "missing"}`;
  return group;
}

function limitsText(input: ExtensibilityReportInput): string {
  const mib = Math.round(input.limits.memoryLimitBytes / 2 ** 20);
  return (
    `Cores: ${formatCpuLayout(input.limits.layout)}, coprocessor=${input.limits.coprocessorCores.join("+")}; ` +
    `gateway and coprocessor each capped at ${mib} MiB of data memory (prlimit --data).`
  );
}

/** The whole report as markdown. */
export function renderExtensibilityReport(input: ExtensibilityReportInput): string {
  const { study } = input;
  const parts = [
    `## ${escapeMarkdown(study.title)} (study ${escapeMarkdown(study.name)})`,
    `Reproduces ${escapeMarkdown(study.source.title)} (seed ${escapeMarkdown(study.source.seed)}). ${limitsText(input)}`,
  ];
  for (const s of input.skippedGateways)
    parts.push(`- **${escapeMarkdown(s.proxy)}** not measured here: ${escapeMarkdown(s.reason)}`);
  for (const run of input.runs) {
    const group = testGroup(run);
    parts.push(`### ${escapeMarkdown(run.test)} · ${escapeMarkdown(run.gateway)}`);
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
    if (run.dir)
      parts.push(
        `Results: ${escapeMarkdown(run.dir)} (\`proxybench compare\` gives paired verdicts against the baseline).`,
      );
  }
  return `${parts.join("\n\n")}\n`;
}
