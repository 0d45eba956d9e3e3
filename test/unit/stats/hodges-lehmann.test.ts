import { describe, expect, it } from "vitest";
import {
  hodgesLehmannPercentChange,
  hodgesLehmannShift,
  intervalRank,
} from "../../../src/stats/hodges-lehmann.js";
import { mannWhitneyU } from "../../../src/stats/mann-whitney.js";

describe("intervalRank", () => {
  it.each([
    // 5 vs 5: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252, so k = 3 and the confidence is 1 - 8/252
    [5, 5, 0.95, 3, 1 - 8 / 252],
    // 4 vs 4: P(U <= 0) = 1/70 <= 0.025 < P(U <= 1) = 2/70
    [4, 4, 0.95, 1, 1 - 2 / 70],
    // 3 vs 3: P(U <= 0) = 1/20 > 0.025: no 95% interval exists
    [3, 3, 0.95, 0, 0],
    // 3 vs 3 at 90%: P(U <= 0) = 0.05 <= 0.05
    [3, 3, 0.9, 1, 0.9],
  ])("%d vs %d at %d: k = %d", (n1, n2, confidence, k, achieved) => {
    const result = intervalRank(n1, n2, confidence);
    expect(result.k).toBe(k);
    expect(result.confidence).toBeCloseTo(achieved, 12);
  });

  it("uses the normal approximation for large samples", () => {
    // 40 vs 40: floor(800 - 1.959964 * sqrt(40 * 40 * 81 / 12)) = floor(800 - 203.69) = 596
    expect(intervalRank(40, 40, 0.95).k).toBe(596);
  });
});

describe("hodgesLehmannShift", () => {
  it("worked by hand: [3..7] against [1..5]", () => {
    // The 25 differences h - b are 2 + (i - j): -2 once, -1 twice, 0 three times, 1 four times,
    // 2 five times, 3 four times, 4 three times, 5 twice, 6 once. Median 2; with k = 3 the
    // interval is [d(3), d(23)] = [-1, 5].
    const shift = hodgesLehmannShift([1, 2, 3, 4, 5], [3, 4, 5, 6, 7]);
    expect(shift).toEqual({ estimate: 2, low: -1, high: 5, confidence: 1 - 8 / 252 });
  });

  it("has no 95% interval with 3 against 3", () => {
    expect(hodgesLehmannShift([1, 2, 3], [4, 5, 6])).toBeUndefined();
  });

  it("excludes 0 exactly when the exact Mann-Whitney test rejects (duality)", () => {
    let state = 12345;
    const random = () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
    let rejections = 0;
    for (let trial = 0; trial < 300; trial++) {
      const shift = random() * 2;
      const base = Array.from({ length: 6 }, () => random() * 3);
      const head = Array.from({ length: 5 }, () => random() * 3 + shift);
      const interval = hodgesLehmannShift(base, head);
      const test = mannWhitneyU(head, base);
      if (interval === undefined || test.ties) continue;
      const excludesZero = interval.low > 0 || interval.high < 0;
      expect(excludesZero, `trial ${trial}: p ${test.p}, [${interval.low}, ${interval.high}]`).toBe(
        test.p <= 0.05,
      );
      if (excludesZero) rejections += 1;
    }
    expect(rejections).toBeGreaterThan(20); // both branches were exercised
  });
});

describe("hodgesLehmannPercentChange", () => {
  it("is exact for a constant ratio", () => {
    const change = hodgesLehmannPercentChange([10, 10, 10, 10, 10], [12, 12, 12, 12, 12]);
    expect(change?.estimate).toBeCloseTo(20, 10);
    expect(change?.low).toBeCloseTo(20, 10);
    expect(change?.high).toBeCloseTo(20, 10);
  });

  it("is symmetric on the log scale: halving is -50%, doubling +100%", () => {
    const base = [10, 11, 9, 10.5, 9.5];
    const up = hodgesLehmannPercentChange(
      base,
      base.map((v) => v * 2),
    );
    const down = hodgesLehmannPercentChange(
      base,
      base.map((v) => v / 2),
    );
    expect(up?.estimate).toBeCloseTo(100, 10);
    expect(down?.estimate).toBeCloseTo(-50, 10);
  });

  it("needs positive values", () => {
    expect(hodgesLehmannPercentChange([0, 1, 2, 3, 4], [1, 2, 3, 4, 5])).toBeUndefined();
  });
});
