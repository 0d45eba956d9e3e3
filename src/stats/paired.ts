import { probit } from "simple-statistics";
import { decideVerdict, type VerdictOutcome } from "./verdict.js";
import { hodgesLehmannPaired, pairsNeededFor, wilcoxonSignedRank } from "./wilcoxon.js";

/**
 * One paired metric judged at one level: per round the log ratio head/base, the exact Wilcoxon
 * signed-rank test, the Hodges-Lehmann estimate with its interval at 1 - level, and the verdict
 * (src/stats/verdict.ts). Shared by `proxybench compare` and the runner's stopping rule, so both
 * decide alike. Pure.
 */

/** The verdict (src/stats/verdict.ts) and the figures behind it. */
export interface PairedJudgement extends VerdictOutcome {
  /** Pairs behind the figures. */
  n: number;
  /** Unadjusted two-sided p-value. */
  p: number;
  method: "exact" | "normal";
  /** Hodges-Lehmann estimate as a % change; absent with no pair. */
  estimatePct?: number;
  /** Interval of the % change at 1 - level; absent when no interval reaches it with n pairs. */
  ci?: [number, number];
  /** Confidence the interval reaches (the test is discrete: at least 1 - level). */
  confidence?: number;
  /**
   * The smallest |% change| these pairs would find 80% of the time at this level (the detectable
   * change at 80% power), never below the threshold. Absent when no interval exists.
   */
  detectablePct?: number;
}

export interface PairedLevel {
  /** Per-test false-alarm level: the interval is at 1 - level. */
  level: number;
  /** Whether the family's procedure rejected this metric (absent: the interval decides alone). */
  rejected?: boolean;
  biggerIsBetter: boolean;
  thresholdPct: number;
}

export function toPct(logRatio: number): number {
  return (Math.exp(logRatio) - 1) * 100;
}

export function judgePaired(logRatios: readonly number[], at: PairedLevel): PairedJudgement {
  const test = wilcoxonSignedRank(logRatios);
  const n = logRatios.length;
  const hl = hodgesLehmannPaired(logRatios, 1 - at.level);
  const interval: [number, number] | undefined =
    hl?.low !== undefined && hl.high !== undefined ? [hl.low, hl.high] : undefined;
  const ci = interval?.map(toPct) as [number, number] | undefined;
  const estimatePct = hl && toPct(hl.estimate);
  const { verdict, why, more } = decideVerdict({
    estimatePct,
    ci,
    biggerIsBetter: at.biggerIsBetter,
    thresholdPct: at.thresholdPct,
    n,
    nNeeded: pairsNeededFor(at.level),
    unit: "rounds",
    ...(at.rejected !== undefined ? { rejected: at.rejected } : {}),
  });
  const out: PairedJudgement = { n, p: test.p, method: test.method, verdict, why };
  if (estimatePct !== undefined) out.estimatePct = estimatePct;
  if (hl !== undefined && interval !== undefined && ci !== undefined) {
    out.ci = ci;
    if (hl.confidence !== undefined) out.confidence = hl.confidence;
    out.detectablePct = detectableChange(hl.estimate, interval, at.thresholdPct, powerScale(at.level));
  }
  if (more !== undefined) out.more = more;
  return out;
}

/** The power the detectable change is stated at. */
export const DETECTION_POWER = 0.8;

/**
 * How much wider than the interval's half-width a change must be to be found with `power` at a
 * two-sided level (normal approximation): (z(1 - level/2) + z(power)) / z(1 - level/2). A change
 * of the half-width itself is found about half the time; at 80% power and Holm's first step
 * over 16 tests it is 1.29 times the half-width. Pure.
 */
export function powerScale(level: number, power = DETECTION_POWER): number {
  const z = probit(1 - level / 2);
  return (z + probit(power)) / z;
}

/**
 * The minimum detectable change of a paired interval, from its spread: the estimate and interval
 * move together with a shift of every log ratio, so a true change of d (log scale) gives an
 * interval [d - (e - low), d + (high - e)], off 0 once d passes the wider side (about half the
 * time); `scale` (powerScale) takes it to a stated power. In % change, at least the threshold
 * (a smaller change is never a verdict). Pure.
 */
export function detectableChange(
  estimate: number,
  interval: [number, number],
  thresholdPct: number,
  scale = 1,
): number {
  const wider = Math.max(estimate - interval[0], interval[1] - estimate);
  return Math.max(thresholdPct, toPct(wider * scale));
}
