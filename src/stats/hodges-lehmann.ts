import { median, probit } from "simple-statistics";
import { EXACT_MAX_TOTAL, exactUDistribution } from "./mann-whitney.js";

/**
 * Hodges-Lehmann estimate of the shift between two samples (the median of all pairwise
 * differences head_i - base_j) and its distribution-free confidence interval (Moses 1965;
 * Hollander & Wolfe, Nonparametric Statistical Methods, section 4.3): the k-th smallest and
 * k-th largest pairwise differences, with k from the null distribution of the Mann-Whitney U.
 * The interval is the dual of the Mann-Whitney test: it excludes 0 exactly when the test
 * rejects at the same level (no ties).
 */

export interface ShiftInterval {
  estimate: number;
  low: number;
  high: number;
  /** Confidence actually reached (U is discrete): at least the one asked for. */
  confidence: number;
}

/**
 * k (1-based) such that [d(k), d(N+1-k)] covers with probability >= confidence, or 0 when no
 * interval reaches that confidence with these sample sizes (3 against 3 at 95%).
 */
export function intervalRank(n1: number, n2: number, confidence: number): { k: number; confidence: number } {
  const tail = (1 - confidence) / 2;
  if (n1 + n2 <= EXACT_MAX_TOTAL) {
    const cdf = exactUDistribution(n1, n2);
    let k = 0;
    while (k < cdf.length && (cdf[k] ?? 1) <= tail + 1e-12) k += 1;
    // P(U <= k - 1) <= tail
    const achieved = k === 0 ? 0 : 1 - 2 * (cdf[k - 1] ?? 0);
    return { k, confidence: achieved };
  }
  const mean = (n1 * n2) / 2;
  const sd = Math.sqrt((n1 * n2 * (n1 + n2 + 1)) / 12);
  const k = Math.max(0, Math.floor(mean - probit(1 - tail) * sd));
  return { k, confidence };
}

/** Shift of head against base (head - base); undefined when the confidence cannot be reached. */
export function hodgesLehmannShift(
  base: readonly number[],
  head: readonly number[],
  confidence = 0.95,
): ShiftInterval | undefined {
  if (base.length === 0 || head.length === 0) return undefined;
  const differences: number[] = [];
  for (const h of head) for (const b of base) differences.push(h - b);
  differences.sort((a, b) => a - b);
  const { k, confidence: achieved } = intervalRank(head.length, base.length, confidence);
  if (k < 1) return undefined;
  const low = differences[k - 1];
  const high = differences[differences.length - k];
  if (low === undefined || high === undefined) return undefined;
  return { estimate: median(differences), low, high, confidence: achieved };
}

/**
 * The same on a ratio scale, as % change: the shift of log(head) against log(base), turned back
 * into (ratio - 1) * 100. Undefined when a value is not positive.
 */
export function hodgesLehmannPercentChange(
  base: readonly number[],
  head: readonly number[],
  confidence = 0.95,
): ShiftInterval | undefined {
  if ([...base, ...head].some((v) => !(v > 0))) return undefined;
  const shift = hodgesLehmannShift(base.map(Math.log), head.map(Math.log), confidence);
  if (shift === undefined) return undefined;
  const pct = (x: number) => (Math.exp(x) - 1) * 100;
  return {
    estimate: pct(shift.estimate),
    low: pct(shift.low),
    high: pct(shift.high),
    confidence: shift.confidence,
  };
}
