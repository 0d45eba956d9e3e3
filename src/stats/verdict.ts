/**
 * The verdict rule, shared by paired and unpaired comparisons, pure so it can be tested with a
 * table of cases. The interval it is given is at the level the family's procedure (Holm over
 * every tested metric of every compared cell, src/stats/holm.ts) tested the metric at, and
 * `rejected` says whether that procedure rejected "no change": so the false-alarm rate is
 * controlled per comparison, not per metric.
 *
 * - regressed / improved: the test rejected, the interval excludes 0 and the estimate reaches
 *   the threshold;
 * - unchanged: the whole interval lies within ±threshold;
 * - inconclusive: anything else, with what would decide it.
 */

export type Verdict = "improved" | "regressed" | "unchanged" | "inconclusive";

export interface VerdictInput {
  /** Estimated % change of head against base (Hodges-Lehmann). */
  estimatePct: number | undefined;
  /** Interval of the % change at the family's confidence; undefined when none is reachable. */
  ci: [number, number] | undefined;
  biggerIsBetter: boolean;
  thresholdPct: number;
  /** Pairs (paired) or the smaller sample (unpaired) behind the interval. */
  n: number;
  /** Fewest pairs or repetitions that can give an interval at this confidence. */
  nNeeded: number;
  /** "rounds" (paired) or "repetitions" (unpaired), for the advice. */
  unit: string;
  /** Whether the family's procedure rejected "no change" for this metric; absent: the interval decides. */
  rejected?: boolean;
}

export interface VerdictOutcome {
  verdict: Verdict;
  why: string;
  /** About how many more rounds or repetitions would decide an inconclusive metric. */
  more?: number;
}

/** Beyond this many more, more of the same will not decide it. */
const MOST_ADVISED = 200;

/** A % change in a sentence: `+1.25%`, `-0.50%`. */
export function signedPct(x: number): string {
  return `${x >= 0 ? "+" : ""}${x.toFixed(2)}%`;
}

export function decideVerdict(input: VerdictInput): VerdictOutcome {
  const { estimatePct, ci, biggerIsBetter, thresholdPct: t, n, nNeeded, unit, rejected } = input;
  if (estimatePct === undefined) return { verdict: "inconclusive", why: "no % change: a value is zero" };
  if (ci === undefined) {
    const more = Math.max(1, nNeeded - n);
    return {
      verdict: "inconclusive",
      why: `no interval at this confidence with ${n} ${unit}: about ${more} more ${unit} would give one`,
      more,
    };
  }
  const intervalExcludesZero = ci[0] > 0 || ci[1] < 0;
  const excludesZero = intervalExcludesZero && rejected !== false;
  const reaches = Math.abs(estimatePct) >= t;
  if (excludesZero && reaches && Math.sign(estimatePct) === Math.sign(ci[0])) {
    const better = biggerIsBetter ? estimatePct > 0 : estimatePct < 0;
    return {
      verdict: better ? "improved" : "regressed",
      why: `interval excludes 0 and the change reaches ${t}%`,
    };
  }
  if (ci[0] >= -t && ci[1] <= t) return { verdict: "unchanged", why: `interval within ±${t}%` };
  const why = [
    excludesZero
      ? `change ${signedPct(estimatePct)} below ${t}%`
      : intervalExcludesZero
        ? "the test does not reject no change at its level"
        : "interval includes 0",
    `interval [${signedPct(ci[0])}, ${signedPct(ci[1])}] not within ±${t}%`,
  ];
  const more = moreToDecide(estimatePct, ci, t, n);
  if (more === undefined) why.push(`more ${unit} are unlikely to decide it`);
  else why.push(`about ${more} more ${unit} would decide it`);
  return { verdict: "inconclusive", why: why.join("; "), ...(more !== undefined ? { more } : {}) };
}

/**
 * How many more pairs would narrow the interval enough (its half-width shrinks as 1/sqrt(n)):
 * to exclude 0 when the estimate reaches the threshold, else to fit within ±threshold.
 */
export function moreToDecide(
  estimatePct: number,
  ci: [number, number],
  thresholdPct: number,
  n: number,
): number | undefined {
  const halfWidth = (ci[1] - ci[0]) / 2;
  const room =
    Math.abs(estimatePct) >= thresholdPct ? Math.abs(estimatePct) : thresholdPct - Math.abs(estimatePct);
  if (room <= 0 || halfWidth <= 0) return undefined;
  const needed = Math.ceil(n * (halfWidth / room) ** 2);
  const more = Math.max(1, needed - n);
  return more > MOST_ADVISED ? undefined : more;
}
