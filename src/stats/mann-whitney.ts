import { errorFunction, wilcoxonRankSum } from "simple-statistics";

/**
 * Two-sided Mann-Whitney U test (Wilcoxon rank-sum), as scipy.stats.mannwhitneyu computes it:
 * the exact null distribution of U when there are no ties and the samples are small, the normal
 * approximation with tie correction and continuity correction otherwise. simple-statistics gives
 * the rank sum (with tied ranks averaged); this module adds U, the exact distribution and the
 * p-values it lacks.
 */

export interface MannWhitneyResult {
  /** U of the first sample: pairs (x, y) with x > y, ties counting one half. */
  u1: number;
  u2: number;
  /** Two-sided p-value. */
  p: number;
  method: "exact" | "normal";
  ties: boolean;
}

/** Above this many combined observations the exact distribution gives way to the normal one. */
export const EXACT_MAX_TOTAL = 60;

/**
 * P(U <= u) for every u in 0..n1*n2 under the null hypothesis, for samples of sizes n1 and n2
 * without ties. Recurrence on probabilities (not counts, which overflow): the largest of the
 * n1 + n2 values belongs to the first sample with probability n1 / (n1 + n2), and then adds n2
 * to U.
 */
export function exactUDistribution(n1: number, n2: number): number[] {
  // table[j][k]: P(U = k) for sizes (i, j), filled for i = 0..n1
  let previous: number[][] = Array.from({ length: n2 + 1 }, () => [1]);
  for (let i = 1; i <= n1; i++) {
    const current: number[][] = [];
    for (let j = 0; j <= n2; j++) {
      const size = i * j + 1;
      const row = new Array<number>(size).fill(0);
      if (j === 0) {
        row[0] = 1;
      } else {
        const a = i / (i + j);
        const b = j / (i + j);
        const fromPrevious = previous[j] ?? [];
        const fromCurrent = current[j - 1] ?? [];
        for (let k = 0; k < size; k++) {
          const withLargestInFirst = k - j >= 0 ? (fromPrevious[k - j] ?? 0) : 0;
          const withLargestInSecond = fromCurrent[k] ?? 0;
          row[k] = a * withLargestInFirst + b * withLargestInSecond;
        }
      }
      current.push(row);
    }
    previous = current;
  }
  const pmf = previous[n2] ?? [1];
  const cdf: number[] = [];
  let total = 0;
  for (const p of pmf) {
    total += p;
    cdf.push(total);
  }
  return cdf;
}

function standardNormalSurvival(z: number): number {
  return 0.5 * (1 - errorFunction(z / Math.SQRT2));
}

/** Counts of each distinct value, for the tie correction. */
function tieCounts(values: readonly number[]): number[] {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.values()];
}

export interface MannWhitneyOptions {
  /** auto (default): exact without ties for up to EXACT_MAX_TOTAL values, normal otherwise. */
  method?: "auto" | "exact" | "normal";
  /** Continuity correction of the normal approximation (default true, as scipy and R). */
  continuity?: boolean;
}

export function mannWhitneyU(
  x: readonly number[],
  y: readonly number[],
  options: MannWhitneyOptions = {},
): MannWhitneyResult {
  const n1 = x.length;
  const n2 = y.length;
  if (n1 === 0 || n2 === 0) throw new Error("mannWhitneyU needs at least one value in each sample");
  const all = [...x, ...y];
  const r1 = wilcoxonRankSum([...x], [...y]);
  const u1 = r1 - (n1 * (n1 + 1)) / 2;
  const u2 = n1 * n2 - u1;
  const counts = tieCounts(all);
  const ties = counts.some((t) => t > 1);
  const u = Math.max(u1, u2);
  const method = options.method ?? "auto";
  if (method === "exact" && ties) throw new Error("the exact Mann-Whitney distribution assumes no ties");
  if (method === "exact" || (method === "auto" && !ties && n1 + n2 <= EXACT_MAX_TOTAL)) {
    const cdf = exactUDistribution(n1, n2);
    // P(U >= u) = 1 - P(U <= u - 1); U is an integer without ties
    const survival = u - 1 >= 0 ? 1 - (cdf[u - 1] ?? 1) : 1;
    return { u1, u2, p: Math.min(1, 2 * survival), method: "exact", ties };
  }
  const n = n1 + n2;
  const tieTerm = counts.reduce((sum, t) => sum + (t * t * t - t), 0);
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  if (variance <= 0) return { u1, u2, p: 1, method: "normal", ties };
  const correction = options.continuity === false ? 0 : 0.5;
  const z = (u - (n1 * n2) / 2 - correction) / Math.sqrt(variance);
  return { u1, u2, p: Math.min(1, Math.max(0, 2 * standardNormalSurvival(z))), method: "normal", ties };
}

/**
 * The smallest two-sided p-value the exact test can give for these sample sizes: 2 / C(n1+n2, n1).
 * With 3 against 3 repetitions it is 0.1, so no difference can be significant at alpha 0.05.
 */
export function minimumExactP(n1: number, n2: number): number {
  if (n1 === 0 || n2 === 0) return 1;
  let combinations = 1;
  for (let i = 1; i <= n1; i++) combinations = (combinations * (n2 + i)) / i;
  return Math.min(1, 2 / combinations);
}
