import { nothingCompared, type CommentSection, type SectionCounts } from "../../report/section.js";
import { verdictCounts, type CountedComparison } from "./compare.js";
import { renderCountedComparison } from "./compare-markdown.js";
import { renderInstructionsMarkdown } from "./report.js";
import type { InstructionsResults } from "./schema.js";

/** The counted section of the PR comment: the comparison, what counting sees and cannot. Pure. */

export interface CountedRuns {
  head: InstructionsResults;
  /** Undefined when the run holds one variant and no base run was given. */
  comparison?: CountedComparison;
}

const COUNTED_SCOPE =
  "Instructions and estimated cycles per request of the proxy's own process, counted under " +
  "Valgrind (callgrind) with the requests sent one at a time: deterministic (a spread of a few " +
  "hundredths of a percent), so a change to the proxy's code or config shows in a few " +
  "repetitions. It cannot see time: waits on the network or the kernel, lock contention, " +
  "several cores at once, or caches beyond callgrind's model.";

/** Verdict counts of a counted comparison, in the wall-clock words. Pure. */
function countedCounts(c: CountedComparison): SectionCounts {
  const n = verdictCounts(c);
  return {
    regressed: n["more-work"],
    improved: n["less-work"],
    unchanged: n.unchanged,
    inconclusive: n.inconclusive,
  };
}

function countedShortfall(c: CountedComparison): string | undefined {
  return c.cells.some((cell) => cell.metrics.length > 0) ? undefined : nothingCompared(c.notCompared);
}

/** Which binary was counted: what a change to the proxy's own source needs. Pure. */
function countedWhere(head: InstructionsResults): string {
  if (head.settings.runtime === "docker") {
    return "The proxies ran in each side's image, built from its Dockerfile with Valgrind added: a change to the proxy's own code is counted.";
  }
  return "The proxies ran as installed on the runner (count-in: native): a change to their config is counted, a change to their source only with count-in: images.";
}

export function countedSection(runs: CountedRuns): CommentSection {
  const c = runs.comparison;
  const body = c === undefined ? renderInstructionsMarkdown(runs.head) : renderCountedComparison(c, 4);
  const scope = `${COUNTED_SCOPE} ${countedWhere(runs.head)}`;
  const markdown = ["### Counted: instructions per request", "", scope, "", body.trimEnd()].join("\n");
  if (c === undefined) return { markdown };
  const shortfall = countedShortfall(c);
  return { markdown, counts: countedCounts(c), ...(shortfall !== undefined ? { shortfall } : {}) };
}
