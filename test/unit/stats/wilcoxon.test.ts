import { describe, expect, it } from "vitest";
import {
  hodgesLehmannPaired,
  minimumSignedRankP,
  pairsNeededFor,
  signedRanks,
  walshIntervalRank,
  wilcoxonSignedRank,
} from "../../../src/stats/wilcoxon.js";

// Critical values of the signed-rank statistic T (the smaller rank sum), two-sided: the largest
// T with P(T <= t) <= alpha/2. Published table: Wilcoxon, Katti & Wilcox (1970), as reprinted
// in Hollander & Wolfe, table A.4, and in most textbooks.
const CRITICAL_05: Record<number, number> = {
  6: 0,
  7: 2,
  8: 3,
  9: 5,
  10: 8,
  11: 10,
  12: 13,
  13: 17,
  14: 21,
  15: 25,
  20: 52,
  25: 89,
  30: 137,
};
const CRITICAL_01: Record<number, number> = { 8: 0, 10: 3, 12: 7, 15: 15, 20: 37, 25: 68, 30: 109 };

/** n differences whose smaller rank sum is exactly t: ranks 1..n, the ones summing to t negative. */
function differencesWithT(n: number, t: number): number[] {
  const negative = new Set<number>();
  let left = t;
  for (let r = n; r >= 1 && left > 0; r--) {
    if (r <= left) {
      negative.add(r);
      left -= r;
    }
  }
  return Array.from({ length: n }, (_, i) => (negative.has(i + 1) ? -(i + 1) : i + 1));
}

describe("exact Wilcoxon signed-rank test", () => {
  it.each(Object.entries(CRITICAL_05))("n=%s: critical value at two-sided 0.05 is the table's", (n, t) => {
    expect(walshIntervalRank(Number(n), 0.95).k - 1).toBe(t);
    expect(wilcoxonSignedRank(differencesWithT(Number(n), t)).p).toBeLessThanOrEqual(0.05);
    expect(wilcoxonSignedRank(differencesWithT(Number(n), t + 1)).p).toBeGreaterThan(0.05);
  });

  it.each(Object.entries(CRITICAL_01))("n=%s: critical value at two-sided 0.01 is the table's", (n, t) => {
    expect(walshIntervalRank(Number(n), 0.99).k - 1).toBe(t);
    expect(wilcoxonSignedRank(differencesWithT(Number(n), t)).p).toBeLessThanOrEqual(0.01);
    expect(wilcoxonSignedRank(differencesWithT(Number(n), t + 1)).p).toBeGreaterThan(0.01);
  });

  it("matches scipy.stats.wilcoxon on Darwin's paired plant heights (T = 24, p = 0.041259765625)", () => {
    const d = [6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75];
    const test = wilcoxonSignedRank(d);
    expect(test.n).toBe(15);
    expect(120 - test.wPlus).toBe(24);
    expect(test.p).toBeCloseTo(0.041259765625, 12);
    expect(test.method).toBe("exact");
  });

  it("is symmetric in sign and drops zero differences", () => {
    const d = [0.3, -0.1, 0.5, 0, 0.7, 0.2];
    const flipped = d.map((x) => -x);
    expect(wilcoxonSignedRank(d).p).toBeCloseTo(wilcoxonSignedRank(flipped).p, 15);
    expect(wilcoxonSignedRank(d).n).toBe(5);
    expect(wilcoxonSignedRank([0, 0, 0])).toMatchObject({ n: 0, p: 1 });
  });

  it("gives tied absolute differences their mid-rank and stays exact", () => {
    expect(signedRanks([1, -1, 2, 3, 3]).map((r) => r.rank)).toEqual([1.5, 1.5, 3, 4.5, 4.5]);
    // All 5 positive, ties or not: the one most extreme pattern of 32 on each side.
    expect(wilcoxonSignedRank([1, 1, 2, 2, 3]).p).toBeCloseTo(2 / 32, 15);
  });

  it("knows the smallest p an exact test on n pairs can reach", () => {
    expect(minimumSignedRankP(5)).toBeCloseTo(0.0625, 15);
    expect(pairsNeededFor(0.05)).toBe(6);
    expect(pairsNeededFor(0.05 / 4)).toBe(8);
    const all = wilcoxonSignedRank([1, 2, 3, 4, 5, 6]);
    expect(all.p).toBeCloseTo(minimumSignedRankP(6), 15);
  });

  it("uses the normal approximation past the exact limit, close to the exact value there", () => {
    const d50 = Array.from({ length: 50 }, (_, i) => (i % 3 === 0 ? -(i + 1) : i + 1));
    const exact = wilcoxonSignedRank(d50);
    const normal = wilcoxonSignedRank([...d50, 1e-6]);
    expect(exact.method).toBe("exact");
    expect(normal.method).toBe("normal");
    expect(exact.p).toBeGreaterThan(0.001);
    expect(Math.abs(normal.p - exact.p) / exact.p).toBeLessThan(0.1);
  });
});

describe("paired Hodges-Lehmann estimate", () => {
  it("is the median of the Walsh averages, with the table's interval ranks", () => {
    // Walsh averages of [1, 2, 4]: 1, 1.5, 2.5, 2, 3, 4 -> median 2.25; 3 pairs: no 95% interval.
    const three = hodgesLehmannPaired([1, 2, 4]);
    expect(three?.estimate).toBeCloseTo(2.25, 15);
    expect(three?.low).toBeUndefined();
    // 10 pairs at 95%: T crit 8, so the interval is the 9th smallest and 9th largest of 55.
    const d = [0.8, 1.9, -0.4, 2.2, 1.1, 0.5, 3.0, 1.4, -0.2, 0.9];
    const walsh: number[] = [];
    for (let i = 0; i < d.length; i++) for (let j = i; j < d.length; j++) walsh.push((d[i]! + d[j]!) / 2);
    walsh.sort((a, b) => a - b);
    const hl = hodgesLehmannPaired(d);
    expect(hl?.low).toBe(walsh[8]);
    expect(hl?.high).toBe(walsh[55 - 9]);
    expect(hl?.confidence).toBeGreaterThanOrEqual(0.95);
    expect(hl?.confidence).toBeLessThan(0.96);
  });

  it("excludes 0 exactly when the exact test rejects (dual of the test, no ties)", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.35;
    for (let trial = 0; trial < 300; trial++) {
      const n = 6 + (trial % 9);
      const d = Array.from({ length: n }, () => random());
      const hl = hodgesLehmannPaired(d, 0.95);
      const excludes = hl?.low !== undefined && (hl.low > 0 || (hl.high ?? 0) < 0);
      expect(excludes).toBe(wilcoxonSignedRank(d).p <= 1 - (hl?.confidence ?? 1) + 1e-12);
    }
  });
});
