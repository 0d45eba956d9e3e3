import { median } from "simple-statistics";

/**
 * The verdict for counted metrics (instructions or estimated cycles per request, from
 * callgrind). Counting is nearly deterministic, so no significance test: a change counts when it
 * is larger than both a floor and several times the spread of the repetitions.
 *
 *   change = (median(head) - median(base)) / median(base)
 *   spread = the larger of the two sides' (max - min) / median
 *   more-work / less-work: |change| > floor AND |change| > factor x spread
 *   unchanged:             |change| <= floor AND factor x spread <= floor
 *   inconclusive:          anything else (repetitions too far apart to tell), with why
 */

export const DEFAULT_FLOOR_PCT = 0.5;
export const DEFAULT_SPREAD_FACTOR = 3;
/** Repetitions a side needs for a spread, hence a verdict. */
const MIN_REPETITIONS = 2;

export type InstructionsVerdict = "more-work" | "less-work" | "unchanged" | "inconclusive";

export interface InstructionsComparison {
  baseMedian: number;
  headMedian: number;
  changePct: number;
  /** The larger relative range (max - min) / median of the two sides, in %. */
  spreadPct: number;
  verdict: InstructionsVerdict;
  why?: string;
}

export interface VerdictOptions {
  floorPct?: number;
  spreadFactor?: number;
}

/** Range of the values relative to their median, in % (0 for one value). */
export function spreadPct(values: readonly number[]): number {
  if (values.length === 0) throw new Error("spread of no values");
  const m = median([...values]);
  if (m === 0) return 0;
  return ((Math.max(...values) - Math.min(...values)) / m) * 100;
}

export function compareCounts(
  base: readonly number[],
  head: readonly number[],
  options: VerdictOptions = {},
): InstructionsComparison {
  const floor = options.floorPct ?? DEFAULT_FLOOR_PCT;
  const factor = options.spreadFactor ?? DEFAULT_SPREAD_FACTOR;
  if (base.length === 0 || head.length === 0) throw new Error("compareCounts: a side has no repetitions");
  const baseMedian = median([...base]);
  const headMedian = median([...head]);
  if (baseMedian <= 0) throw new Error(`compareCounts: the base median is ${baseMedian}, not a count`);
  const changePct = ((headMedian - baseMedian) / baseMedian) * 100;
  const spread = Math.max(spreadPct(base), spreadPct(head));
  const result = { baseMedian, headMedian, changePct, spreadPct: spread };
  const size = Math.abs(changePct);
  if (base.length < MIN_REPETITIONS || head.length < MIN_REPETITIONS) {
    const why = `${base.length} vs ${head.length} repetitions: at least ${MIN_REPETITIONS} a side give a spread`;
    return { ...result, verdict: "inconclusive", why };
  }
  if (size > floor && size > factor * spread) {
    return { ...result, verdict: changePct > 0 ? "more-work" : "less-work" };
  }
  if (size <= floor && factor * spread <= floor) return { ...result, verdict: "unchanged" };
  const why =
    size > floor
      ? `the change (${size.toFixed(2)}%) is within ${factor} x the spread (${spread.toFixed(2)}%)`
      : `${factor} x the spread (${(factor * spread).toFixed(2)}%) is larger than the floor (${floor.toFixed(2)}%)`;
  return { ...result, verdict: "inconclusive", why };
}
