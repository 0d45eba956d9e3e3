import type { Cell, Repetition } from "../results/schema.js";
import { everyRound, fewestRounds, judgeLooks, type LookedMember } from "../stats/sequential.js";
import { DEFAULT_ALPHA, DEFAULT_THRESHOLD_PCT, pairsByRound } from "../stats/tested-metrics.js";
import { withoutUndefined } from "../util/objects.js";

/**
 * What the noise allows of the differences a cross-proxy table shows, pure. A run measures its
 * proxies in rounds (each round gives every cell of a block one repetition), so each difference
 * of a proxy against the baseline proxy is paired by round exactly as base against head is in
 * `proxybench compare`, and gets the same statistics: per round the log ratio, the exact
 * Wilcoxon signed-rank test and the Hodges-Lehmann estimate with Tukey's interval
 * (src/stats/paired.ts), Holm's step-down over the table's own family (every difference it
 * shows), each interval at the level Holm tested it at. A difference "differs" only by compare's
 * rule for regressed or improved (src/stats/verdict.ts): Holm rejected "no change", its interval
 * excludes 0 and it reaches the threshold (5%); every other one is within noise. The threshold
 * matters beyond taste: with `--proxy-lifetime block` each proxy runs as one process for all the
 * rounds of a block, so what is fixed for a process (its memory layout: peak memory 2% apart
 * between two identical nginx, the same in every round) does not cancel between rounds, and
 * would otherwise show as real.
 */

/** One difference a table shows: a figure of `other` against the same figure of `base`. */
export interface DifferenceMember {
  base: Cell;
  other: Cell;
  /** The figure of a repetition; undefined where it was not measured. */
  value: (r: Repetition) => number | undefined;
  /**
   * Set when the figure holds the time the hypervisor stole (src/stats/steal.ts): a round where
   * either side's steal is above this many cores is left out of its test, as compare leaves it.
   */
  stealLimit?: number;
}

export interface Difference {
  /** Rounds paired (both cells measured the figure in them, and neither had steal above its limit). */
  rounds: number;
  /** Rounds left out for steal above the member's limit. */
  stolen: number;
  /** Paired estimate of the % change (Hodges-Lehmann over the rounds' ratios). */
  estimatePct?: number;
  /** Interval of the % change at `confidence`; absent when these rounds give none at its level. */
  ci?: [number, number];
  confidence?: number;
  /**
   * More than the noise explains, by compare's rule for regressed or improved: Holm rejected
   * "no change", the interval excludes 0 and the estimate reaches the threshold.
   */
  differs: boolean;
}

/** The family of the differences a table shows, as judged together. */
export type DifferenceFamily = ReturnType<typeof judgeDifferences>["family"];

/** When a cell was being measured: from its first repetition's start to its last one's end (ms). */
function measuredSpan(cell: Cell): [number, number] {
  const starts = cell.repetitions.map((r) => Date.parse(r.startedAt));
  const last = cell.repetitions[starts.indexOf(Math.max(...starts))];
  return [Math.min(...starts), Math.max(...starts) + (last?.durationS ?? 0) * 1000];
}

/**
 * Whether two cells were measured side by side, so that their rounds pair: on the same machine,
 * their repetitions interleaved in time. Not so for cells of two shards (merged results), nor
 * for a cell measured again by --resume after the others had finished. With one repetition each
 * there is nothing to interleave (and no interval either way).
 */
export function measuredTogether(a: Cell, b: Cell): boolean {
  if (a.runner !== b.runner) return false;
  if (a.repetitions.length < 2 || b.repetitions.length < 2) return true;
  const [aFrom, aTo] = measuredSpan(a);
  const [bFrom, bTo] = measuredSpan(b);
  return aFrom <= bTo && bFrom <= aTo;
}

/** A member as the looks read it: per round both cells measured, in round order; rounds of steal left out. */
function pairOf(member: DifferenceMember): LookedMember & { stolen: number } {
  const { pairs, stolen, usable } = pairsByRound(member.base, member.other, member.value, {
    stealLimit: member.stealLimit,
    noisyOut: false,
  });
  return { pairs, rounds: pairs.length, usable, stolen: stolen.length, spec: { biggerIsBetter: false } };
}

/**
 * Holm over the family, then each difference judged at its level: compare's judging at one look.
 * The family's figures, and the differences one per member, in order.
 */
export function judgeDifferences(
  members: readonly DifferenceMember[],
  {
    alpha = DEFAULT_ALPHA,
    thresholdPct = DEFAULT_THRESHOLD_PCT,
  }: { alpha?: number; thresholdPct?: number } = {},
) {
  const paired = members.map(pairOf);
  const { judged } = judgeLooks(paired, everyRound(alpha), thresholdPct);
  const differences = paired.map((p, i): Difference => {
    const j = judged[i]?.judgement;
    const counts = { rounds: p.usable ? p.pairs.length : 0, stolen: p.stolen };
    if (j === undefined) return { ...counts, differs: false };
    return {
      ...counts,
      differs: j.verdict === "regressed" || j.verdict === "improved",
      ...withoutUndefined({ estimatePct: j.estimatePct, ci: j.ci, confidence: j.confidence }),
    };
  });
  const tests = members.length;
  return {
    family: {
      /** False-alarm rate of the whole table: the chance of any difference shown as real when none is. */
      alpha,
      /** Smallest |% change| shown as real (compare's threshold). */
      thresholdPct,
      /** Differences in the family (Holm's m). */
      tests,
      /** Fewest rounds paired among them. */
      rounds: tests === 0 ? 0 : Math.min(...differences.map((d) => d.rounds)),
      /** Fewest rounds that give every difference of the family an interval (2 / 2^n <= alpha / m). */
      roundsNeeded: fewestRounds(alpha, tests),
    },
    differences,
  };
}
