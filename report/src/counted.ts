import {
  compareCountedRuns,
  compareCountedVariants,
  countedRegressions,
  readInstructions,
  type CountedComparison,
} from "../../src/instructions/compare.js";
import { renderCountedComparison } from "../../src/instructions/compare-markdown.js";
import { renderInstructionsMarkdown } from "../../src/instructions/report.js";
import type { Verdict } from "../../src/report/compare.js";
import type { ReportSettings } from "./input-helper.js";
import { commentHead } from "./comment.js";
import { deliver, type ReportDeps, type ReportOutcome } from "./report.js";

/**
 * The report of a counted run (`run --measure instructions`, instructions.json): with
 * base-results, the two runs compared; without, the run's variants compared when it holds them
 * (bench-instructions.yml counts base and head in one run), else its table. The comparison is
 * computed here from the results, validated against their schema; nothing else is trusted.
 */

/** What a counted comparison cannot speak for: nothing compared at all (pure). */
function countedShortfall(c: CountedComparison): string | undefined {
  if (c.cells.some((cell) => cell.metrics.length > 0)) return undefined;
  const n = c.notCompared.length;
  return `nothing was compared (${n} cell${n === 1 ? "" : "s"} not compared)`;
}

/**
 * One word for a counted comparison (pure): more work wins, then less work, then doubt; nothing
 * compared is doubt, never "unchanged".
 */
function countedVerdict(c: CountedComparison): Verdict {
  const all = c.cells.flatMap((cell) => cell.metrics.map((m) => m.verdict));
  if (all.includes("more-work")) return "regressed";
  if (all.includes("less-work")) return "improved";
  if (all.includes("inconclusive") || countedShortfall(c) !== undefined) return "inconclusive";
  return "unchanged";
}

async function countedComparison(
  settings: ReportSettings,
  dir: string,
): Promise<CountedComparison | undefined> {
  const options = { floorPct: settings.floorPct };
  if (settings.baseResults !== undefined) {
    return compareCountedRuns(settings.baseResults, dir, options);
  }
  const { results } = await readInstructions(dir);
  const variants = new Set(results.cells.flatMap((c) => (c.variant === undefined ? [] : [c.variant])));
  return variants.size >= 2 ? compareCountedVariants(dir, options) : undefined;
}

/** The report of a counted run (one results directory: `dir`). */
export async function reportCounted(
  settings: ReportSettings,
  dir: string,
  deps: ReportDeps,
): Promise<ReportOutcome> {
  const { results: head } = await readInstructions(dir);
  const comparison = await countedComparison(settings, dir);
  const markdown =
    comparison === undefined ? renderInstructionsMarkdown(head) : renderCountedComparison(comparison);
  const regressions = comparison === undefined ? 0 : countedRegressions(comparison);
  const verdict = comparison === undefined ? "" : countedVerdict(comparison);
  const shortfall = comparison === undefined ? undefined : countedShortfall(comparison);
  return deliver(settings, { markdown, head: commentHead(head), verdict, regressions, shortfall }, deps);
}
