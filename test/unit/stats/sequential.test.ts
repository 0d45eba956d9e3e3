import { describe, expect, it } from "vitest";
import { mulberry32 } from "../../../src/runner/rounds.js";
import { judgePaired } from "../../../src/stats/paired.js";
import { fewestRounds, lookAt, planLooks, stopAtLook } from "../../../src/stats/sequential.js";

describe("fewestRounds", () => {
  it("is the fewest n with 2 / 2^n <= alpha / m: an interval exists for the family", () => {
    expect(fewestRounds(0.05, 1)).toBe(6);
    // issue 24: 32 tests, 10 rounds give 0.00195 > 0.05/32
    expect(fewestRounds(0.05, 32)).toBe(11);
    expect(2 / 2 ** 10).toBeGreaterThan(0.05 / 32);
    expect(fewestRounds(0.05, 24)).toBe(10);
    expect(fewestRounds(0.05, 25)).toBe(10);
    expect(fewestRounds(0.05, 26)).toBe(11);
    // exactly at a power of two: 2/2^5 = 0.0625 <= 0.0625
    expect(fewestRounds(0.0625, 1)).toBe(5);
  });
});

describe("planLooks", () => {
  it("without a budget: one look at the fewest rounds, spending all of alpha", () => {
    expect(planLooks({ alpha: 0.05, tests: 36 })).toEqual({
      alpha: 0.05,
      tests: 36,
      looks: [{ rounds: 11, alpha: 0.05 }],
    });
  });

  it("with a budget: looks from the fewest rounds at their share to the budget's last round", () => {
    const plan = planLooks({ alpha: 0.05, tests: 36, maxRounds: 30 });
    expect(plan.looks.map((l) => l.rounds)).toEqual([14, 22, 30]);
    // the early looks spend 0.25 of alpha together, the last the rest
    expect(plan.looks[0]!.alpha).toBeCloseTo(0.00625, 15);
    expect(plan.looks[2]!.alpha).toBeCloseTo(0.0375, 15);
    // the first look has an interval at its share
    expect(plan.looks[1]!.alpha).toBeCloseTo(0.00625, 15);
    expect(fewestRounds(plan.looks[0]!.alpha, 36)).toBe(14);
    expect(fewestRounds(plan.looks[0]!.alpha * 2, 36)).toBe(13);
  });

  it("never spends more than alpha in all, and its looks grow at least minGap apart", () => {
    for (const tests of [1, 4, 12, 24, 36, 40, 100]) {
      for (let maxRounds = 1; maxRounds <= 60; maxRounds++) {
        for (const maxLooks of [1, 2, 3, 5]) {
          const plan = planLooks({ alpha: 0.05, tests, maxRounds, maxLooks });
          const total = plan.looks.reduce((s, l) => s + l.alpha, 0);
          expect(total).toBeLessThanOrEqual(0.05);
          expect(plan.looks.length).toBeLessThanOrEqual(maxLooks);
          for (let i = 1; i < plan.looks.length; i++) {
            expect(plan.looks[i]!.rounds - plan.looks[i - 1]!.rounds).toBeGreaterThanOrEqual(2);
          }
          // every look has rounds enough for an interval at its share
          for (const l of plan.looks) expect(l.rounds).toBeGreaterThanOrEqual(fewestRounds(l.alpha, tests));
        }
      }
    }
  });

  it("a budget too small for an interval still gets the fewest rounds that give one", () => {
    expect(planLooks({ alpha: 0.05, tests: 36, maxRounds: 4 }).looks).toEqual([{ rounds: 11, alpha: 0.05 }]);
    // room for one look only: at the budget's rounds, all of alpha
    expect(planLooks({ alpha: 0.05, tests: 36, maxRounds: 13 }).looks).toEqual([{ rounds: 13, alpha: 0.05 }]);
  });

  it("lookAt finds a planned look by its rounds", () => {
    const plan = planLooks({ alpha: 0.05, tests: 36, maxRounds: 30 });
    expect(lookAt(plan, 14)).toBe(0);
    expect(lookAt(plan, 30)).toBe(2);
    expect(lookAt(plan, 15)).toBeUndefined();
  });
});

describe("stopAtLook", () => {
  const plan = planLooks({ alpha: 0.05, tests: 2, maxRounds: 20 });
  const n = plan.looks[0]!.rounds;
  const random = mulberry32(5);
  const noisy = () => Array.from({ length: n }, () => (random() - 0.5) * 0.6);
  const clear = Array.from({ length: n }, (_, i) => Math.log(1.3) + (i % 3) * 0.001);

  it("stops when every metric is decided, and not before", () => {
    const up = { logRatios: clear, biggerIsBetter: false, decided: false };
    expect(stopAtLook(plan, 0, [up, up], 5)).toEqual({
      decided: [true, true],
      precise: [false, false],
      stop: true,
    });
    const undecided = { logRatios: noisy(), biggerIsBetter: false, decided: false };
    expect(stopAtLook(plan, 0, [up, undecided], 5)).toEqual({
      decided: [true, false],
      precise: [false, false],
      stop: false,
    });
  });

  it("a metric decided at an earlier look stays decided, whatever its rounds say now", () => {
    const before = { logRatios: noisy(), biggerIsBetter: false, decided: true };
    expect(stopAtLook(plan, 1, [before], 5)).toEqual({ decided: [true], precise: [false], stop: true });
  });

  it("with a target: an undecided metric whose change at 80% power is within it needs no more rounds", () => {
    // a quiet metric moved +3% (below the 5% threshold, so never regressed): undecided at 0.05/2
    // when its interval is not within ±5%, yet precise enough to find a 10% change
    const quiet = Array.from({ length: n }, (_, i) => Math.log(1.03) + (i % 2 ? 0.02 : -0.02));
    const metric = { logRatios: quiet, biggerIsBetter: false, decided: false };
    const without = stopAtLook(plan, 0, [metric], 5);
    const j = judgePaired(quiet, {
      level: plan.looks[0]!.alpha / plan.tests,
      biggerIsBetter: false,
      thresholdPct: 5,
    });
    expect(j.verdict).toBe("inconclusive");
    expect(without).toEqual({ decided: [false], precise: [false], stop: false });
    expect(stopAtLook(plan, 0, [metric], 5, j.detectablePct! + 0.1)).toEqual({
      decided: [false],
      precise: [true],
      stop: true,
    });
    expect(stopAtLook(plan, 0, [metric], 5, j.detectablePct! - 0.1).stop).toBe(false);
    // a noisy one is not
    expect(stopAtLook(plan, 0, [{ ...metric, logRatios: noisy() }], 5, 10).stop).toBe(false);
    // the metric the rounds are sized for holds them: a noisy p99 beside it does not
    const loose = { logRatios: noisy(), biggerIsBetter: false, decided: false };
    const target = j.detectablePct! + 0.1;
    expect(stopAtLook(plan, 0, [{ ...metric, holdsRounds: true }, loose], 5, target).stop).toBe(true);
    expect(stopAtLook(plan, 0, [metric, loose], 5, target).stop).toBe(false);
    expect(stopAtLook(plan, 0, [{ ...metric, holdsRounds: true }, loose], 5).stop).toBe(false);
  });

  it("with a target: an undecided metric whose estimate reaches the threshold holds the rounds", () => {
    // rounds moved by a % change, each +-6% around it: undecided at this look's level, yet
    // precise enough for a target just above their detectable change
    const moved = (pct: number) =>
      Array.from({ length: n }, (_, i) => Math.log(1 + pct / 100) + (i % 2 ? 0.06 : -0.06));
    const level = { level: plan.looks[0]!.alpha / plan.tests, biggerIsBetter: false, thresholdPct: 5 };
    const stopsAt = (pct: number) => {
      const judged = judgePaired(moved(pct), level);
      expect(judged.verdict).toBe("inconclusive");
      const metric = { logRatios: moved(pct), biggerIsBetter: false, decided: false, holdsRounds: true };
      return {
        estimate: judged.estimatePct!,
        look: stopAtLook(plan, 0, [metric], 5, judged.detectablePct! + 0.1),
      };
    };
    // +6%, beyond the 5% threshold: more rounds may decide it, so the block goes on
    const near = stopsAt(6);
    expect(near.estimate).toBeGreaterThanOrEqual(5);
    expect(near.look).toEqual({ decided: [false], precise: [false], stop: false });
    // the same rounds at +3%, under the threshold: precise, the block may stop
    expect(stopsAt(3).look).toEqual({ decided: [false], precise: [true], stop: true });
  });

  it("judges at the look's most cautious level: alpha_k / m", () => {
    // 8 same-signed rounds reach p = 2/256 = 0.0078: enough at 0.05/2 with one look...
    const eight = Array.from({ length: 8 }, () => Math.log(1.3));
    const single = planLooks({ alpha: 0.05, tests: 2 });
    expect(stopAtLook(single, 0, [{ logRatios: eight, biggerIsBetter: false, decided: false }], 5).stop).toBe(
      true,
    );
    // ...not at a look that spends 0.00625 of it (0.0078 > 0.00625 / 2)
    const early = {
      alpha: 0.05,
      tests: 2,
      looks: [
        { rounds: 8, alpha: 0.00625 },
        { rounds: 20, alpha: 0.04375 },
      ],
    };
    expect(stopAtLook(early, 0, [{ logRatios: eight, biggerIsBetter: false, decided: false }], 5).stop).toBe(
      false,
    );
    expect(() => stopAtLook(early, 2, [], 5)).toThrow(/no look 2/);
  });
});
