import { writeJobSummary } from "../../src/github/summary.js";
import {
  compareResults,
  compareVariants,
  variantNames,
  type CompareOptions,
  type Comparison,
  type Verdict,
} from "../../src/report/compare.js";
import { renderComparisonMarkdown } from "../../src/report/compare-markdown.js";
import { escapeMarkdown } from "../../src/report/escape.js";
import { renderMarkdownReport } from "../../src/report/markdown.js";
import { readResults } from "../../src/results/io.js";
import { cellRunners, expandResultPaths, readMergedResults } from "../../src/results/merge.js";
import type { Results } from "../../src/results/schema.js";
import { formatCores } from "../../src/runner/cpus.js";
import { isInstructionsRun } from "../../src/instructions/compare.js";
import type { ReportSettings } from "./input-helper.js";
import { reportCounted } from "./counted.js";
import { comment, commentHead, type CommentHead } from "./comment.js";
import { pickDefined, withoutUndefined } from "../../src/util/objects.js";

export interface ReportOutcome {
  /** Empty without a base. */
  verdict: Verdict | "";
  regressions: number;
  commentUrl: string;
  markdown: string;
  /** Why the step fails (fail-on-regression); undefined: it does not. */
  failure?: string;
}

/**
 * What the comparison cannot speak for (pure): nothing compared at all, or head cells that failed
 * or were invalid (a head that breaks a proxy is no "unchanged"). Noisy or skipped cells are the
 * machine's or the run's, not the head's: they are listed as not compared, and that is all.
 */
function headShortfall(comparison: Comparison, head: Results): string | undefined {
  if (comparison.tests === 0) {
    const n = comparison.notCompared.length;
    return `nothing was compared (${n} cell${n === 1 ? "" : "s"} not compared)`;
  }
  const variant = comparison.head.variant;
  const broken = head.cells.filter(
    (c) =>
      (variant === undefined || c.variant === variant) && (c.status === "failed" || c.status === "invalid"),
  );
  if (broken.length === 0) return undefined;
  return `the head has ${broken.length} cell${broken.length === 1 ? "" : "s"} failed or invalid (${broken.map((c) => `${c.id}: ${c.status}`).join(", ")})`;
}

/**
 * One word for a whole comparison (pure): any regression wins, then improvements, then doubt; a
 * comparison with a shortfall (nothing compared, a broken head cell) is never "unchanged".
 */
function overallVerdict(comparison: Comparison, shortfall: string | undefined): Verdict {
  const c = comparison.counts;
  if (c.regressed > 0) return "regressed";
  if (c.improved > 0) return "improved";
  if (c.inconclusive > 0 || shortfall !== undefined) return "inconclusive";
  return "unchanged";
}

/**
 * Where the head was measured, from its results.json: the runner (given by the workflow, else
 * the host name), the CPU model, the core count and the cores of each role (pure). Every name is
 * escaped: the results come from the benchmark's artifact, which the pull request controls.
 */
function machineLine(head: Results, runnerName?: string): string {
  const env = head.environment;
  const where = escapeMarkdown(runnerName ?? env.hostname ?? "");
  const cpus = head.settings.cpus;
  const layout = [
    `load generator ${formatCores(cpus.loadgen)}`,
    `proxy ${formatCores(cpus.proxy)}`,
    `upstream ${formatCores(cpus.upstream)}`,
  ].join(", ");
  const machine = `${escapeMarkdown(env.cpuModel)}, ${env.cores} core${env.cores === 1 ? "" : "s"}`;
  return `Measured on ${where ? `**${where}** (${machine})` : machine}; cores: ${layout}.`;
}

/**
 * The comparison a report shows: a base run against the head run (unpaired), else the
 * variants of the one run (base and head interleaved, paired by round), else none (pure).
 */
function chooseComparison(
  head: Results,
  base: Results | undefined,
  options: CompareOptions,
): Comparison | undefined {
  if (base !== undefined) return compareResults(base, head, options);
  if (variantNames(head).length >= 2) return compareVariants(head, options);
  return undefined;
}

/**
 * "Base and head paired over 10 rounds on **bench-1**, ..." for a paired comparison; over
 * shards, every runner with its cells (pure).
 */
function pairingLine(comparison: Comparison, head: Results, runnerName?: string): string {
  if (comparison.mode !== "paired") return `Base and head: ${comparison.label}.`;
  const runners = cellRunners(head);
  if (runners.size > 1) {
    const list = [...runners]
      .map(([name, cells]) => `**${escapeMarkdown(name)}** (${cells} cells)`)
      .join(", ");
    return `Base and head ${comparison.label} on ${runners.size} runners, each cell's pairs on one machine: ${list}.`;
  }
  const where = escapeMarkdown(runnerName ?? [...runners.keys()][0] ?? head.environment.hostname ?? "");
  return `Base and head ${comparison.label}${where ? ` on **${where}**` : ""}, interleaved on the same cores.`;
}

interface RenderOptions {
  baselineProxy?: string;
  runnerName?: string;
}

/** The markdown of the comment and the summary (pure). */
function renderReport(
  head: Results,
  comparison: Comparison | undefined,
  options: RenderOptions = {},
): string {
  const { baselineProxy } = options;
  const tables = renderMarkdownReport(head, baselineProxy !== undefined ? { baselineProxy } : {});
  const machine = machineLine(head, options.runnerName);
  if (comparison === undefined) return `${machine}\n\n${tables}`;
  return [
    renderComparisonMarkdown(comparison, { showUnchanged: false }),
    pairingLine(comparison, head, options.runnerName),
    machine,
    "",
    `<details><summary>All results of the ${comparison.mode === "paired" ? "run" : "head"}</summary>`,
    "",
    tables,
    "</details>",
    "",
  ].join("\n");
}

/** The links under the summary: the results artifact, the history chart, the run (pure). */
function summaryLinks(settings: Pick<ReportSettings, "artifactUrl" | "chartUrl" | "detailsUrl">): string {
  const links = [
    settings.artifactUrl && `[results artifact](${settings.artifactUrl})`,
    settings.chartUrl && `[history chart](${settings.chartUrl})`,
    settings.detailsUrl && `[this run](${settings.detailsUrl})`,
  ].filter((l): l is string => typeof l === "string" && l !== "");
  return links.length === 0 ? "" : `\n${links.join(" · ")}\n`;
}

export interface ReportDeps {
  log: (line: string) => void;
  /** A problem that does not fail the step (default: log). */
  warn?: (line: string) => void;
  /** Tests shorten the retry waits. */
  clientDelayMs?: number;
}

/** Compares, writes the summary and the comment; the caller sets the outputs. */
export async function report(settings: ReportSettings, deps: ReportDeps): Promise<ReportOutcome> {
  const only = settings.results.length === 1 ? settings.results[0] : undefined;
  if (only !== undefined && (await isInstructionsRun(only))) return reportCounted(settings, only, deps);
  const head = await readMergedResults(await expandResultPaths(settings.results));
  const base = settings.baseResults !== undefined ? await readResults(settings.baseResults) : undefined;
  const comparison = chooseComparison(head, base, {
    thresholdPct: settings.thresholdPct,
    alpha: settings.alpha,
  });
  const markdown = renderReport(head, comparison, pickDefined(settings, ["baselineProxy", "runnerName"]));

  const regressions = comparison?.counts.regressed ?? 0;
  const shortfall = comparison === undefined ? undefined : headShortfall(comparison, head);
  const verdict = comparison === undefined ? "" : overallVerdict(comparison, shortfall);
  return deliver(settings, { markdown, head: commentHead(head), verdict, regressions, shortfall }, deps);
}

/**
 * Why the step fails: under fail-on-regression, regressions or a comparison that fell short; in
 * any case, a comment GitHub refused for a reason other than the token or a lock (pure).
 */
function failureOf(
  failOnRegression: boolean,
  report: { regressions: number; shortfall?: string | undefined },
  commentError: string | undefined,
): string | undefined {
  const strict = [
    ...(report.regressions > 0 ? [`${report.regressions} metric(s) regressed`] : []),
    ...(report.shortfall !== undefined ? [report.shortfall] : []),
  ];
  const reasons = [
    ...(failOnRegression && strict.length > 0 ? [`${strict.join("; ")} (fail-on-regression is set)`] : []),
    ...(commentError !== undefined ? [commentError] : []),
  ];
  return reasons.length === 0 ? undefined : reasons.join("; ");
}

/**
 * Writes a rendered report to the job summary and the sticky comment, as the settings ask;
 * returns what the action's outputs are set from.
 */
export async function deliver(
  settings: ReportSettings,
  report: Pick<ReportOutcome, "markdown" | "verdict" | "regressions"> & {
    head: CommentHead;
    /** What the comparison could not speak for: named as a warning, fails the step under fail-on-regression. */
    shortfall?: string | undefined;
  },
  deps: ReportDeps,
): Promise<ReportOutcome> {
  if (report.shortfall !== undefined)
    (deps.warn ?? deps.log)(`verdict ${report.verdict}: ${report.shortfall}`);
  if (settings.summary && (await writeJobSummary(`${report.markdown}${summaryLinks(settings)}`)))
    deps.log("report added to the job summary");
  const commented =
    settings.comment && settings.token !== undefined
      ? await comment(settings, report.markdown, report.head, deps)
      : { url: "" };
  return {
    verdict: report.verdict,
    regressions: report.regressions,
    commentUrl: commented.url,
    markdown: report.markdown,
    ...withoutUndefined({ failure: failureOf(settings.failOnRegression, report, commented.error) }),
  };
}
