import { cellRunners } from "../../results/merge.js";
import { variantNames } from "../../results/variants.js";
import type { Results } from "../../results/schema.js";
import { formatCores } from "../../environment/tuning.js";
import {
  compareResults,
  compareVariants,
  type CompareOptions,
  type Comparison,
} from "../../report/compare.js";
import { renderComparisonMarkdown } from "../../report/compare-markdown.js";
import { escapeMarkdown } from "../../render/escape.js";
import { plural } from "../../render/format.js";
import { renderMarkdownReport } from "../../report/markdown.js";
import { describeLayout } from "../../report/model.js";
import { nothingCompared, type CommentSection, type SectionOptions } from "../../report/section.js";
import { pickDefined } from "../../util/objects.js";

/** The wall-clock section of the PR comment: the comparison, how it was paired, the tables. Pure. */

export interface WallClockRuns {
  /** The run (its shards merged); with variants base and head are paired by round. */
  head: Results;
  /** A base run measured at another time (unpaired). */
  base?: Results;
}

const WALL_CLOCK_SCOPE =
  "Latency, and the proxy's CPU time and peak memory per request, under load on pinned cores. " +
  "It sees what a user waits for, the kernel and concurrency included, but the machine's own " +
  "noise hides changes below the smallest detectable change it names for an undecided metric.";

/** The wall-clock comparison: a base run against the head (unpaired), else the head's variants. */
function wallClockComparison(runs: WallClockRuns, options: CompareOptions): Comparison | undefined {
  if (runs.base !== undefined) return compareResults(runs.base, runs.head, options);
  if (variantNames(runs.head).length >= 2) return compareVariants(runs.head, options);
  return undefined;
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

export function wallClockSection(runs: WallClockRuns, options: SectionOptions): CommentSection {
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
