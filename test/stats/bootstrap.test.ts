import { median } from "simple-statistics";
import { describe, expect, it } from "vitest";
import { bootstrapMedianChangeInterval, seededRandom } from "../../src/stats/bootstrap.js";

describe("seededRandom", () => {
  it("repeats its sequence for a seed and stays in [0, 1)", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(seededRandom(43)()).not.toBe(seededRandom(42)());
  });

  it("is roughly uniform (mean near 0.5 over 10,000 draws)", () => {
    const r = seededRandom(7);
    const xs = Array.from({ length: 10_000 }, () => r());
    expect(xs.reduce((s, x) => s + x, 0) / xs.length).toBeCloseTo(0.5, 1);
  });
});

describe("bootstrapMedianChangeInterval", () => {
  const base = [100, 102, 98, 101, 99, 100, 103];
  const head = base.map((v) => v * 1.2 + ((v * 7) % 3) - 1);

  it("gives the same interval for the same inputs (fixed seed)", () => {
    expect(bootstrapMedianChangeInterval(base, head)).toEqual(bootstrapMedianChangeInterval(base, head));
  });

  it("is [0, 0] for two constant identical samples and [20, 20] for an exact 20% scaling", () => {
    expect(bootstrapMedianChangeInterval([5, 5, 5], [5, 5, 5])).toEqual([0, 0]);
    const [low, high] = bootstrapMedianChangeInterval([10, 10, 10], [12, 12, 12]) ?? [NaN, NaN];
    expect(low).toBeCloseTo(20, 10);
    expect(high).toBeCloseTo(20, 10);
  });

  it("contains the observed change and lies within the extreme ratios", () => {
    const [low, high] = bootstrapMedianChangeInterval(base, head) ?? [NaN, NaN];
    const observed = (median(head) / median(base) - 1) * 100;
    expect(low).toBeLessThanOrEqual(observed);
    expect(high).toBeGreaterThanOrEqual(observed);
    expect(low).toBeGreaterThanOrEqual((Math.min(...head) / Math.max(...base) - 1) * 100);
    expect(high).toBeLessThanOrEqual((Math.max(...head) / Math.min(...base) - 1) * 100);
    expect(low).toBeGreaterThan(10); // a 20% shift with ~2% noise: clearly above zero
  });

  it("narrows as the confidence drops", () => {
    const wide = bootstrapMedianChangeInterval(base, head, { confidence: 0.99 }) ?? [NaN, NaN];
    const narrow = bootstrapMedianChangeInterval(base, head, { confidence: 0.5 }) ?? [NaN, NaN];
    expect(narrow[1] - narrow[0]).toBeLessThan(wide[1] - wide[0]);
  });

  it("has no interval when the base can be zero or a side is empty", () => {
    expect(bootstrapMedianChangeInterval([0, 1, 2], [1, 2, 3])).toBeUndefined();
    expect(bootstrapMedianChangeInterval([], [1])).toBeUndefined();
  });
});
