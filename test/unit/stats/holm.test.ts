import { describe, expect, it } from "vitest";
import { holm } from "../../../src/stats/holm.js";
import { mulberry32 } from "../../../src/runner/rounds.js";

describe("holm", () => {
  it("steps down from the smallest p and stops at the first that fails", () => {
    // sorted: 0.005 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2: stop
    const { rejected, levels } = holm([0.01, 0.04, 0.03, 0.005], 0.05);
    expect(rejected).toEqual([true, false, false, true]);
    expect(levels[3]).toBeCloseTo(0.05 / 4, 15);
    expect(levels[0]).toBeCloseTo(0.05 / 3, 15);
    // the others were tested at the level where it stopped
    expect(levels[1]).toBeCloseTo(0.05 / 2, 15);
    expect(levels[2]).toBeCloseTo(0.05 / 2, 15);
  });

  it("rejects what Bonferroni rejects, and more", () => {
    const p = [0.02, 0.03];
    expect(p.filter((x) => x <= 0.05 / 2)).toHaveLength(1);
    expect(holm(p, 0.05).rejected).toEqual([true, true]);
    expect(holm(p, 0.05).levels).toEqual([0.025, 0.05]);
  });

  it("rejects nothing when the smallest p is above alpha / m, and every level is alpha / m", () => {
    expect(holm([0.02, 0.5, 0.9], 0.05)).toEqual({
      rejected: [false, false, false],
      levels: [0.05 / 3, 0.05 / 3, 0.05 / 3],
    });
    expect(holm([], 0.05)).toEqual({ rejected: [], levels: [] });
  });

  it("ties keep their order and every tied p is rejected together", () => {
    expect(holm([0.001, 0.001, 0.001], 0.05).rejected).toEqual([true, true, true]);
  });

  it("keeps the chance of any false rejection under alpha when every null is true (20,000 families of 10)", () => {
    const random = mulberry32(24);
    let any = 0;
    const runs = 20_000;
    for (let i = 0; i < runs; i++) {
      const p = Array.from({ length: 10 }, () => random());
      if (holm(p, 0.05).rejected.some(Boolean)) any += 1;
    }
    // independent uniform p-values: 1 - (1 - 0.005)^10 = 0.0489 expected
    expect(any / runs).toBeLessThan(0.053);
    expect(any / runs).toBeGreaterThan(0.044);
  });
});
