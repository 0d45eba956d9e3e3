import { describe, expect, it } from "vitest";
import { detectableChange, judgePaired, powerScale, toPct } from "../../../src/stats/paired.js";

const at = { level: 0.05, biggerIsBetter: false, thresholdPct: 5 };

describe("judgePaired", () => {
  it("a clear +20% with every round the same way: regressed, with its interval at 1 - level", () => {
    const up = Array.from({ length: 10 }, (_, i) => Math.log(1.2) + (i - 5) * 0.002);
    const j = judgePaired(up, at);
    expect(j.verdict).toBe("regressed");
    expect(j.p).toBeCloseTo(2 / 1024, 12);
    expect(j.ci?.[0]).toBeGreaterThan(0);
    expect(j.confidence).toBeGreaterThanOrEqual(0.95);
    expect(j.detectablePct).toBeDefined();
  });

  it("is never regressed when the family's procedure did not reject, even if the interval excludes 0", () => {
    const up = Array.from({ length: 10 }, (_, i) => Math.log(1.2) + (i - 5) * 0.002);
    const j = judgePaired(up, { ...at, rejected: false });
    expect(j.ci?.[0]).toBeGreaterThan(0);
    expect(j.verdict).toBe("inconclusive");
    expect(j.why).toMatch(/does not reject/);
  });

  it("with too few rounds: no interval, no detectable change, and how many rounds would give one", () => {
    const j = judgePaired([0.1, 0.2, 0.1], { ...at, level: 0.05 / 36 });
    expect(j.ci).toBeUndefined();
    expect(j.detectablePct).toBeUndefined();
    expect(j.why).toMatch(/about 8 more rounds would give one/);
  });
});

describe("powerScale: from even odds to 80% power", () => {
  it("is (z(1 - level/2) + z(0.8)) / z(1 - level/2)", () => {
    expect(powerScale(0.05)).toBeCloseTo((1.959964 + 0.841621) / 1.959964, 2);
    expect(powerScale(0.05 / 16)).toBeCloseTo(1.2848, 2);
  });

  it("judgePaired states the detectable change at 80% power, not the interval's half-width", () => {
    const rounds = [0.05, -0.08, 0.12, -0.02, 0.03, -0.11, 0.07, 0.01, -0.04, 0.09, 0.02, -0.06];
    const j = judgePaired(rounds, at);
    const half = detectableChange(
      Math.log(1 + j.estimatePct! / 100),
      [Math.log(1 + j.ci![0] / 100), Math.log(1 + j.ci![1] / 100)],
      0,
    );
    expect(j.detectablePct! / half).toBeGreaterThan(1.2);
  });
});

describe("detectableChange", () => {
  it("is the wider side of the interval around the estimate, as a % change", () => {
    expect(detectableChange(0, [-0.1, 0.1], 5)).toBeCloseTo(toPct(0.1), 12);
    expect(detectableChange(0.02, [-0.05, 0.2], 5)).toBeCloseTo(toPct(0.18), 12);
  });

  it("is never below the threshold: a smaller change is never a verdict", () => {
    expect(detectableChange(0, [-0.01, 0.01], 5)).toBe(5);
  });

  it("shifting every round by d moves the interval by d: a change of that size clears 0", () => {
    const rounds = [0.05, -0.08, 0.12, -0.02, 0.03, -0.11, 0.07, 0.01, -0.04, 0.09];
    const j = judgePaired(rounds, at);
    const d = Math.log(1 + (j.detectablePct ?? 0) / 100) + 1e-9;
    const shifted = judgePaired(
      rounds.map((x) => x + d),
      at,
    );
    expect(j.verdict).toBe("inconclusive");
    expect(shifted.ci?.[0]).toBeGreaterThan(0);
  });
});
