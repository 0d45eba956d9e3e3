import { cumulativeStdNormalProbability, median, probit } from "simple-statistics";

/**
 * Paired comparisons: the Wilcoxon signed-rank test on the differences of matched pairs
 * (head - base of one round), the Hodges-Lehmann estimate of their centre (the median of the
 * Walsh averages) and its distribution-free confidence interval (Tukey; Hollander & Wolfe,
 * Nonparametric Statistical Methods, section 3.2). Zero differences are dropped (Wilcoxon's
 * rule); tied absolute differences get mid-ranks and the exact null distribution is the
 * sign-flip permutation distribution of those ranks, so it stays exact with ties.
 */

/** Above this many non-zero pairs the normal approximation is used. */
const EXACT_MAX_PAIRS = 50;

/** Ranks 1..n of |d|, ties sharing their mid-rank. */
export function signedRanks(differences: readonly number[]): Array<{ rank: number; positive: boolean }> {
  const nonZero = differences.filter((d) => d !== 0);
  const order = nonZero.map((d, i) => ({ abs: Math.abs(d), i })).sort((a, b) => a.abs - b.abs);
  const ranks = new Array<number>(nonZero.length);
  for (let start = 0; start < order.length;) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.abs === order[start]!.abs) end += 1;
    const mid = (start + end + 2) / 2;
    for (let k = start; k <= end; k++) ranks[order[k]!.i] = mid;
    start = end + 1;
  }
  return nonZero.map((d, i) => ({ rank: ranks[i]!, positive: d > 0 }));
}

/**
 * Null distribution of W+ (sum of the ranks of positive differences) when every sign is equally
 * likely: counts[t] = number of the 2^n sign patterns whose doubled W+ equals t (ranks are
 * doubled so mid-ranks stay integers).
 */
function signedRankCounts(ranks: readonly number[]): number[] {
  const doubled = ranks.map((r) => Math.round(r * 2));
  const total = doubled.reduce((a, b) => a + b, 0);
  let counts = new Array<number>(total + 1).fill(0);
  counts[0] = 1;
  for (const r of doubled) {
    const next = counts.slice();
    for (let t = r; t <= total; t++) next[t]! += counts[t - r]!;
    counts = next;
  }
  return counts;
}

export interface SignedRankTest {
  /** W+ : the sum of the ranks of the positive differences. */
  wPlus: number;
  /** Non-zero differences used. */
  n: number;
  /** Two-sided p-value. */
  p: number;
  method: "exact" | "normal";
}

/** Two-sided Wilcoxon signed-rank test of "the differences are centred on 0". */
export function wilcoxonSignedRank(differences: readonly number[]): SignedRankTest {
  const signed = signedRanks(differences);
  const n = signed.length;
  const wPlus = signed.filter((s) => s.positive).reduce((a, s) => a + s.rank, 0);
  if (n === 0) return { wPlus: 0, n: 0, p: 1, method: "exact" };
  const ranks = signed.map((s) => s.rank);
  const total = ranks.reduce((a, b) => a + b, 0);
  if (n <= EXACT_MAX_PAIRS) {
    const counts = signedRankCounts(ranks);
    const all = 2 ** n;
    const low = Math.min(wPlus, total - wPlus) * 2;
    let tail = 0;
    for (let t = 0; t <= Math.round(low); t++) tail += counts[t] ?? 0;
    return { wPlus, n, p: Math.min(1, (2 * tail) / all), method: "exact" };
  }
  const mean = total / 2;
  const variance = ranks.reduce((a, r) => a + r * r, 0) / 4;
  const z = (Math.abs(wPlus - mean) - 0.5) / Math.sqrt(variance);
  return {
    wPlus,
    n,
    p: Math.min(1, 2 * (1 - cumulativeStdNormalProbability(Math.max(0, z)))),
    method: "normal",
  };
}

/** The smallest two-sided p-value an exact test on n pairs can give: 2 / 2^n. */
export function minimumSignedRankP(n: number): number {
  return n <= 0 ? 1 : Math.min(1, 2 / 2 ** n);
}

/**
 * Fewest pairs whose exact test can reach p <= alpha, 2 / 2^n <= alpha (e.g. 6 for 0.05, 8 for
 * 0.0125, 11 for 0.05 / 40): fewer pairs give no interval at 1 - alpha.
 */
export function pairsNeededFor(alpha: number): number {
  let n = 1;
  while (minimumSignedRankP(n) > alpha * (1 + 1e-9) && n < 64) n += 1;
  return n;
}

/**
 * k (1-based) such that [W(k), W(M+1-k)] of the M sorted Walsh averages covers the centre with
 * probability >= confidence, from the null distribution of W+ without ties; k = 0 when no
 * interval reaches it with n pairs (fewer than 6 pairs at 95%).
 */
export function walshIntervalRank(n: number, confidence: number): { k: number; confidence: number } {
  const tail = (1 - confidence) / 2;
  if (n <= EXACT_MAX_PAIRS) {
    const counts = signedRankCounts(Array.from({ length: n }, (_, i) => i + 1));
    const all = 2 ** n;
    // counts are over doubled W+: entry 2t is W+ = t.
    let cumulative = 0;
    let k = 0;
    for (let t = 0; 2 * t < counts.length; t++) {
      const next = cumulative + (counts[2 * t] ?? 0) / all;
      if (next > tail + 1e-12) break;
      cumulative = next;
      k = t + 1;
    }
    return { k, confidence: k === 0 ? 0 : 1 - 2 * cumulative };
  }
  const m = (n * (n + 1)) / 4;
  const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24);
  return { k: Math.max(0, Math.floor(m - probit(1 - tail) * sd)), confidence };
}

export interface PairedShift {
  /** Hodges-Lehmann estimate: the median of the Walsh averages. */
  estimate: number;
  low?: number;
  high?: number;
  /** Confidence the interval reaches (at least the one asked for); absent with no interval. */
  confidence?: number;
}

/** Centre of the paired differences with its interval (undefined for no pairs). */
export function hodgesLehmannPaired(
  differences: readonly number[],
  confidence = 0.95,
): PairedShift | undefined {
  const n = differences.length;
  if (n === 0) return undefined;
  const walsh: number[] = [];
  for (let i = 0; i < n; i++) for (let j = i; j < n; j++) walsh.push((differences[i]! + differences[j]!) / 2);
  walsh.sort((a, b) => a - b);
  const out: PairedShift = { estimate: median(walsh) };
  const { k, confidence: reached } = walshIntervalRank(n, confidence);
  if (k >= 1 && k <= walsh.length) {
    out.low = walsh[k - 1]!;
    out.high = walsh[walsh.length - k]!;
    out.confidence = reached;
  }
  return out;
}
