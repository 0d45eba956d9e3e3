import { describe, expect, it } from "vitest";
import { exactUDistribution, mannWhitneyU, minimumExactP } from "../../../src/stats/mann-whitney.js";

describe("mannWhitneyU against published worked examples", () => {
  // Rosie Shier, "Statistics: 2.3 The Mann-Whitney U Test", Mathematics Learning Support Centre,
  // 2004 (the example of scipy.stats.mannwhitneyu's documentation): age at diagnosis of type II
  // diabetes. U_M = 17, U_F = 3; exact two-sided p = 0.1111 (1/9); scipy's normal approximation
  // with continuity correction 0.11134688653314041, without 0.0864107329737 (Shier: p = 0.09).
  const males = [19, 22, 16, 29, 24];
  const females = [20, 11, 17, 12];

  it("Shier 2004: U and the exact p-value", () => {
    const result = mannWhitneyU(males, females);
    expect(result.u1).toBe(17);
    expect(result.u2).toBe(3);
    expect(result.method).toBe("exact");
    expect(result.p).toBeCloseTo(1 / 9, 12);
  });

  it("Shier 2004: normal approximation with and without continuity correction", () => {
    expect(mannWhitneyU(males, females, { method: "normal" }).p).toBeCloseTo(0.11134688653314041, 6);
    expect(mannWhitneyU(males, females, { method: "normal", continuity: false }).p).toBeCloseTo(
      0.0864107329737,
      6,
    );
  });

  // Hollander & Wolfe (1973), p. 69: the example of R's wilcox.test documentation (x: patients
  // before, y: after), checked against R in scipy's test suite (test_gh_9184): W = 35; exact
  // two-sided p = 0.2544122544123; normal with continuity 0.244623605127, without 0.2206713619198.
  const x = [0.8, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46];
  const y = [1.15, 0.88, 0.9, 0.74, 1.21];

  it("Hollander & Wolfe / R wilcox.test: exact", () => {
    const result = mannWhitneyU(x, y);
    expect(result.u1).toBe(35);
    expect(result.method).toBe("exact");
    expect(result.p).toBeCloseTo(0.2544122544123, 10);
  });

  it("Hollander & Wolfe / R wilcox.test: normal approximation", () => {
    expect(mannWhitneyU(x, y, { method: "normal" }).p).toBeCloseTo(0.244623605127, 6);
    expect(mannWhitneyU(x, y, { method: "normal", continuity: false }).p).toBeCloseTo(0.2206713619198, 6);
  });

  // Ties: values checked against R's wilcox.test(exact = FALSE) in scipy's test suite
  // (test_gh_11355b). Ties force the normal approximation with tie correction.
  it.each([
    [[1, 2, 3, 4], [3, 6, 7, 8, Infinity, 3, 2, 1, 4, 4, 5], 10, 0.1297704873477],
    [[1, 2, 3, 4], [3, 6, 7, 8, Infinity, Infinity, 2, 1, 4, 4, 5], 8.5, 0.08735617507695],
    [[1, 2, Infinity, 4], [3, 6, 7, 8, Infinity, 3, 2, 1, 4, 4, 5], 17.5, 0.5988856695752],
    [[1, Infinity, Infinity, 4], [3, 6, 7, 8, Infinity, Infinity, 2, 1, 4, 4, 5], 24.5, 0.7912517950119],
  ])("ties: %j vs %j -> U %d, p %d", (a, b, u, p) => {
    const result = mannWhitneyU(a, b);
    expect(result.ties).toBe(true);
    expect(result.method).toBe("normal");
    expect(result.u1).toBe(u);
    expect(result.p).toBeCloseTo(p, 6);
  });

  it("U at its mean gives p = 1, not more (scipy test_exact_U_equals_mean, test_gh_2118)", () => {
    expect(mannWhitneyU([1, 2, 3], [1.5, 2.5]).p).toBe(1);
    expect(mannWhitneyU([1, 2, 3], [1.5, 2.5], { method: "normal" }).p).toBe(1);
    expect(mannWhitneyU([1, 2], [1, 2]).p).toBe(1);
  });

  it("identical samples are not significant", () => {
    expect(mannWhitneyU([5, 5, 5], [5, 5, 5]).p).toBe(1);
  });

  it("refuses an empty sample", () => {
    expect(() => mannWhitneyU([], [1])).toThrow(/at least one value/);
  });
});

describe("exact distribution of U", () => {
  it("3 vs 3: 20 equally likely arrangements, P(U = 0) = 1/20, symmetric, sums to 1", () => {
    const cdf = exactUDistribution(3, 3);
    expect(cdf).toHaveLength(10);
    expect(cdf[0]).toBeCloseTo(1 / 20, 12);
    expect(cdf[9]).toBeCloseTo(1, 12);
    // symmetry: P(U <= k) = P(U >= 9 - k)
    for (let k = 0; k < 9; k++) expect(cdf[k]).toBeCloseTo(1 - (cdf[8 - k] ?? 0), 12);
  });

  it("40 vs 40: equals an exact count with big integers, and is close to the normal approximation", () => {
    const a = Array.from({ length: 40 }, (_, i) => i * 1.37 + 0.1);
    const b = Array.from({ length: 40 }, (_, i) => i * 1.41 + 2.3);
    const result = mannWhitneyU(a, b, { method: "exact" });
    // independent count: subsets of 40 ranks out of 80 by the sum of their (0-based) ranks
    const n1 = 40;
    const n = 80;
    const maxSum = (n1 * (2 * n - n1 - 1)) / 2;
    let table: bigint[][] = Array.from({ length: n1 + 1 }, () => new Array<bigint>(maxSum + 1).fill(0n));
    (table[0] as bigint[])[0] = 1n;
    for (let r = 0; r < n; r++) {
      const next = table.map((row) => [...row]);
      for (let k = 0; k < n1; k++) {
        const row = table[k] as bigint[];
        const target = next[k + 1] as bigint[];
        for (let s = 0; s + r <= maxSum; s++)
          if (row[s]) target[s + r] = (target[s + r] ?? 0n) + (row[s] ?? 0n);
      }
      table = next;
    }
    const counts = table[n1] as bigint[];
    const offset = (n1 * (n1 - 1)) / 2; // rank sum of U = 0
    const u = Math.max(result.u1, result.u2);
    let tail = 0n;
    let total = 0n;
    counts.forEach((c, s) => {
      total += c;
      if (s - offset >= u) tail += c;
    });
    const p = Math.min(1, (2 * Number((tail * 10n ** 15n) / total)) / 1e15);
    expect(result.p).toBeCloseTo(p, 12);
    expect(Math.abs(result.p - mannWhitneyU(a, b, { method: "normal" }).p)).toBeLessThan(5e-3);
  });

  it("matches brute-force enumeration of every arrangement (4 vs 5)", () => {
    // every way to pick which 4 of the 9 ranks belong to the first sample
    const counts = new Array<number>(21).fill(0);
    let total = 0;
    for (let mask = 0; mask < 1 << 9; mask++) {
      const ranks = [...Array(9).keys()].filter((i) => (mask >> i) & 1);
      if (ranks.length !== 4) continue;
      const u = ranks.reduce((s, r) => s + r, 0) - (3 * 4) / 2;
      counts[u] = (counts[u] ?? 0) + 1;
      total += 1;
    }
    const cdf = exactUDistribution(4, 5);
    let running = 0;
    counts.forEach((c, u) => {
      running += c;
      expect(cdf[u]).toBeCloseTo(running / total, 12);
    });
  });
});

describe("minimumExactP", () => {
  it.each([
    [3, 3, 0.1],
    [3, 4, 2 / 35],
    [4, 4, 2 / 70],
    [5, 5, 2 / 252],
    [1, 1, 1],
  ])("%d vs %d -> %f", (n1, n2, p) => {
    expect(minimumExactP(n1, n2)).toBeCloseTo(p, 12);
  });

  it("is the p-value of completely separated samples", () => {
    expect(mannWhitneyU([1, 2, 3], [4, 5, 6]).p).toBeCloseTo(minimumExactP(3, 3), 12);
    expect(mannWhitneyU([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]).p).toBeCloseTo(minimumExactP(5, 5), 12);
  });
});
