import type { CountedComparison } from "../measures/counted/compare.js";
import { renderCountedComparison } from "../measures/counted/compare-markdown.js";
import { renderInstructionsMarkdown } from "../measures/counted/report.js";
import type { InstructionsResults } from "../measures/counted/schema.js";
import { cellRunners } from "../results/merge.js";
import { variantNames } from "../results/variants.js";
import type { Results } from "../results/schema.js";
import { formatCores } from "../runner/cpus.js";
import {
  compareResults,
  compareVariants,
  type CompareOptions,
  type Comparison,
  type Verdict,
} from "../report/compare.js";
import { renderComparisonMarkdown } from "../report/compare-markdown.js";
import { escapeMarkdown } from "../render/escape.js";
import { plural } from "../render/format.js";
import { renderMarkdownReport } from "../report/markdown.js";
import { describeLayout } from "../report/model.js";
import { pickDefined } from "../util/objects.js";

/**
 * The one PR comment (and job summary): the counted verdicts first (instructions per request
 * under Valgrind: deterministic, they decide small changes), then the wall-clock ones (latency,
 * the proxy's CPU and memory per request), each section saying what it can and cannot see.
 * Pure: the runs are read and the counted comparison made by `loadCommentRuns`; the report
 * action and `proxybench comment` both render with this function, so they post the same text.
 * Every string from a results file is escaped: the artifact is the pull request's.
 */

interface WallClockRuns {
  /** The run (its shards merged); with variants base and head are paired by round. */
  head: Results;
  /** A base run measured at another time (unpaired). */
  base?: Results;
}

interface CountedRuns {
  head: InstructionsResults;
  /** Undefined when the run holds one variant and no base run was given. */
  comparison?: CountedComparison;
}

/** A study run: its own table (rendered by the study, escaped), compared within the run only. */
interface StudyRuns {
  name: string;
  title: string;
  /** What the study's table sets side by side. */
  compares: string;
  markdown: string;
  /** The results of its first test: the run's commit. */
  head: Results;
}

/** A study run is reported alone (`loadCommentRuns` refuses it beside other runs). */
export interface CommentRuns {
  wallClock?: WallClockRuns;
  counted?: CountedRuns;
  study?: StudyRuns;
  /** What was expected and is not there (a failed job, a lost shard): the report is incomplete. */
  missing?: string[];
}

export interface PrCommentOptions extends CompareOptions {
  baselineProxy?: string;
  /** The benchmark runner's name, given by the workflow (else the results' host name). */
  runnerName?: string;
}

type SectionCounts = Record<Verdict, number>;

export interface PrComment {
  markdown: string;
  /** Empty when nothing was compared (a run without base or variants). */
  verdict: Verdict | "";
  /** Regressed metrics, counted and wall-clock together. */
  regressions: number;
  counts: { counted?: SectionCounts; wallClock?: SectionCounts };
  /** What the comparison cannot speak for (nothing compared, a broken head cell). */
  shortfall?: string;
  /** The commit the comment is for, and its time (an older comment never replaces a newer). */
  head: { sha: string; time: string };
}

const COUNTED_SCOPE =
  "Instructions and estimated cycles per request of the proxy's own process, counted under " +
  "Valgrind (callgrind) with the requests sent one at a time: deterministic (a spread of a few " +
  "hundredths of a percent), so a change to the proxy's code or config shows in a few " +
  "repetitions. It cannot see time: waits on the network or the kernel, lock contention, " +
  "several cores at once, or caches beyond callgrind's model.";

const WALL_CLOCK_SCOPE =
  "Latency, and the proxy's CPU time and peak memory per request, under load on pinned cores. " +
  "It sees what a user waits for, the kernel and concurrency included, but the machine's own " +
  "noise hides changes below the smallest detectable change it names for an undecided metric.";

/** Verdict counts of a counted comparison, in the wall-clock words. Pure. */
function countedCounts(c: CountedComparison): SectionCounts {
  const all = c.cells.flatMap((cell) => cell.metrics.map((m) => m.verdict));
  const n = (v: string) => all.filter((x) => x === v).length;
  return {
    regressed: n("more-work"),
    improved: n("less-work"),
    unchanged: n("unchanged"),
    inconclusive: n("inconclusive"),
  };
}

/** The wall-clock comparison: a base run against the head (unpaired), else the head's variants. */
function wallClockComparison(runs: WallClockRuns, options: CompareOptions): Comparison | undefined {
  if (runs.base !== undefined) return compareResults(runs.base, runs.head, options);
  if (variantNames(runs.head).length >= 2) return compareVariants(runs.head, options);
  return undefined;
}

function nothingCompared(notCompared: readonly unknown[]): string {
  return `nothing was compared (${plural(notCompared.length, "cell")} not compared)`;
}

/** Nothing compared at all, or head cells that failed or were invalid: never "unchanged". */
function wallClockShortfall(comparison: Comparison, head: Results): string | undefined {
  if (comparison.tests === 0) return nothingCompared(comparison.notCompared);
  const variant = comparison.head.variant;
  const broken = head.cells.filter(
    (c) =>
      (variant === undefined || c.variant === variant) && (c.status === "failed" || c.status === "invalid"),
  );
  if (broken.length === 0) return undefined;
  const list = broken.map((c) => `${c.id}: ${c.status}`).join(", ");
  return `the head has ${plural(broken.length, "cell")} failed or invalid (${list})`;
}

function countedShortfall(c: CountedComparison): string | undefined {
  return c.cells.some((cell) => cell.metrics.length > 0) ? undefined : nothingCompared(c.notCompared);
}

/**
 * One word over every section: a regression wins; then a shortfall (what was not measured could
 * hide a regression), then an improvement, then doubt. Pure.
 */
function overallVerdict(counts: SectionCounts[], shortfall: string | undefined): Verdict {
  const sum = (k: keyof SectionCounts) => counts.reduce((s, c) => s + c[k], 0);
  if (sum("regressed") > 0) return "regressed";
  if (shortfall !== undefined) return "inconclusive";
  if (sum("improved") > 0) return "improved";
  if (sum("inconclusive") > 0) return "inconclusive";
  return "unchanged";
}

/** The warning under the headline of a report that lacks what was expected (escaped). Pure. */
function incompleteNote(missing: readonly string[]): string {
  return `> [!WARNING]\n> Incomplete: ${missing.map(escapeMarkdown).join("; ")}. The verdict cannot speak for what is missing.`;
}

/** "Measured on **runner** (CPU, 8 cores); cores: ..." from the head's results. Pure. */
function machineLine(head: Results, runnerName?: string): string {
  const env = head.environment;
  const where = escapeMarkdown(runnerName ?? env.hostname ?? "");
  const layout = describeLayout(head.settings.cpus, formatCores);
  const machine = `${escapeMarkdown(env.cpuModel)}, ${plural(env.cores, "core")}`;
  return `Measured on ${where ? `**${where}** (${machine})` : machine}; cores: ${layout}.`;
}

/** How base and head were paired, and on which runners. Pure. */
function pairingLine(comparison: Comparison, head: Results, runnerName?: string): string {
  const label = escapeMarkdown(comparison.label);
  if (comparison.mode !== "paired") return `Base and head: ${label}.`;
  const runners = cellRunners(head);
  if (runners.size > 1) {
    const list = [...runners]
      .map(([name, cells]) => `**${escapeMarkdown(name)}** (${cells} cells)`)
      .join(", ");
    return `Base and head ${label} on ${runners.size} runners, each cell's pairs on one machine: ${list}.`;
  }
  const where = escapeMarkdown(runnerName ?? [...runners.keys()][0] ?? head.environment.hostname ?? "");
  return `Base and head ${label}${where ? ` on **${where}**` : ""}, interleaved on the same cores.`;
}

/** "after 12 rounds (looks at 11, 12)" for a paired comparison: how long it took to decide. */
function roundsTaken(comparison: Comparison): string {
  if (comparison.mode !== "paired") return "";
  const rounds = Math.max(0, ...comparison.cells.flatMap((c) => c.metrics.map((m) => m.n)));
  return rounds > 0 ? ` It took ${plural(rounds, "round")}.` : "";
}

interface Section {
  markdown: string;
  counts?: SectionCounts;
  shortfall?: string;
}

/** Which binary was counted: what a change to the proxy's own source needs. Pure. */
function countedWhere(head: InstructionsResults): string {
  if (head.settings.runtime === "docker") {
    return "The proxies ran in each side's image, built from its Dockerfile with Valgrind added: a change to the proxy's own code is counted.";
  }
  return "The proxies ran as installed on the runner (count-in: native): a change to their config is counted, a change to their source only with count-in: images.";
}

function countedSection(runs: CountedRuns): Section {
  const c = runs.comparison;
  const body =
    c === undefined ? renderInstructionsMarkdown(runs.head) : renderCountedComparison(c, { headingLevel: 4 });
  const scope = `${COUNTED_SCOPE} ${countedWhere(runs.head)}`;
  const markdown = ["### Counted: instructions per request", "", scope, "", body.trimEnd()].join("\n");
  if (c === undefined) return { markdown };
  const shortfall = countedShortfall(c);
  return { markdown, counts: countedCounts(c), ...(shortfall !== undefined ? { shortfall } : {}) };
}

function wallClockSection(runs: WallClockRuns, options: PrCommentOptions): Section {
  const tables = renderMarkdownReport(runs.head, pickDefined(options, ["baselineProxy"]));
  const machine = machineLine(runs.head, options.runnerName);
  const title = "### Wall clock: latency, CPU and memory per request";
  const comparison = wallClockComparison(runs, options);
  if (comparison === undefined) {
    return { markdown: [title, "", machine, "", tables.trimEnd()].join("\n") };
  }
  const shortfall = wallClockShortfall(comparison, runs.head);
  const markdown = [
    title,
    `${WALL_CLOCK_SCOPE}${roundsTaken(comparison)}`,
    renderComparisonMarkdown(comparison, { showUnchanged: false, headingLevel: 4 }).trimEnd(),
    `${pairingLine(comparison, runs.head, options.runnerName)}\n${machine}`,
    `<details><summary>All results of the ${comparison.mode === "paired" ? "run" : "head"}</summary>`,
    tables.trimEnd(),
    "</details>",
  ].join("\n\n");
  return { markdown, counts: comparison.counts, ...(shortfall !== undefined ? { shortfall } : {}) };
}

/** The headline over both sections: the verdict, and each section's counts. Pure. */
function headline(verdict: Verdict | "", counts: PrComment["counts"]): string {
  const part = (name: string, c: SectionCounts | undefined) =>
    c === undefined
      ? []
      : [
          `${name}: ${c.regressed} regressed, ${c.improved} improved, ${c.unchanged} unchanged, ` +
            `${c.inconclusive} inconclusive`,
        ];
  const parts = [...part("counted", counts.counted), ...part("wall clock", counts.wallClock)];
  const word = verdict === "" ? "results" : `**${verdict}**`;
  return `## proxybench: ${word}${parts.length > 0 ? ` (${parts.join("; ")})` : ""}`;
}

const STUDY_SCOPE =
  "measured side by side in one run, on the same machine and cores: the table shows how they " +
  "compare with each other here. It is no comparison with the base branch, so it says nothing " +
  "of whether this change made anything faster or slower.";

/** A study's comment: what it shows in the headline, then its own table. Pure. */
function studyComment(study: StudyRuns): string {
  const name = escapeMarkdown(study.name);
  return [
    `## proxybench: study ${name}, ${escapeMarkdown(study.compares)} side by side (no verdict against a base)`,
    `### Study: ${name}`,
    `${escapeMarkdown(study.title)}. The study's ${escapeMarkdown(study.compares)} ${STUDY_SCOPE}`,
    study.markdown.trimEnd(),
  ].join("\n\n");
}

/** The commit a comment is for: the wall-clock run's, else the counted run's, else the study's. */
function commentHead(runs: CommentRuns): PrComment["head"] {
  const from = runs.wallClock?.head ?? runs.counted?.head ?? runs.study?.head;
  const git = from?.environment?.git;
  return { sha: git?.commit ?? "", time: git?.timestamp ?? from?.startedAt ?? "" };
}

/** The comment of a pull request's runs: counted first, then wall clock. Pure. */
export function buildPrComment(runs: CommentRuns, options: PrCommentOptions = {}): PrComment {
  const missing = runs.missing ?? [];
  const note = missing.length > 0 ? [incompleteNote(missing)] : [];
  if (runs.study !== undefined) {
    const [title, ...rest] = studyComment(runs.study).split("\n\n");
    const markdown = `${[title, ...note, ...rest].join("\n\n")}\n`;
    const shortfall = missing.length > 0 ? { shortfall: missing.join("; ") } : {};
    return { markdown, verdict: "", regressions: 0, counts: {}, head: commentHead(runs), ...shortfall };
  }
  if (runs.wallClock === undefined && runs.counted === undefined) {
    throw new Error("buildPrComment: no runs to report");
  }
  const sections = [
    ...(runs.counted !== undefined ? [{ key: "counted" as const, ...countedSection(runs.counted) }] : []),
    ...(runs.wallClock !== undefined
      ? [{ key: "wallClock" as const, ...wallClockSection(runs.wallClock, options) }]
      : []),
  ];
  const counts: PrComment["counts"] = {};
  for (const s of sections) if (s.counts !== undefined) counts[s.key] = s.counts;
  const shortfalls = [
    ...missing,
    ...sections.flatMap((s) => (s.shortfall !== undefined ? [s.shortfall] : [])),
  ];
  const shortfall = shortfalls.length > 0 ? shortfalls.join("; ") : undefined;
  const compared = Object.values(counts);
  // Nothing compared and nothing missing: a run without a base, no verdict to give.
  const verdict = compared.length === 0 && missing.length === 0 ? "" : overallVerdict(compared, shortfall);
  const regressions = compared.reduce((s, c) => s + c.regressed, 0);
  const parts = [headline(verdict, counts), ...note, ...sections.map((s) => s.markdown)];
  const markdown = `${parts.join("\n\n")}\n`;
  return {
    markdown,
    verdict,
    regressions,
    counts,
    head: commentHead(runs),
    ...(shortfall !== undefined ? { shortfall } : {}),
  };
}
