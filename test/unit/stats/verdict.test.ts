import { describe, expect, it } from "vitest";
import { decideVerdict, moreToDecide } from "../../../src/stats/verdict.js";

describe("decideVerdict", () => {
  const common = { thresholdPct: 5, n: 10, nNeeded: 8, unit: "rounds" };
  it.each<[string, number | undefined, [number, number] | undefined, boolean, string]>([
    ["big rise in req/s, interval above 0", 20, [15, 25], true, "improved"],
    ["big rise in latency", 20, [15, 25], false, "regressed"],
    ["big drop in req/s", -20, [-25, -15], true, "regressed"],
    ["big drop in latency", -20, [-25, -15], false, "improved"],
    ["estimate exactly at the threshold counts (inclusive)", 5, [0.5, 9], false, "regressed"],
    ["interval excludes 0 but the estimate is below the threshold, inside ±5%", 3, [1, 4], true, "unchanged"],
    ["interval excludes 0, estimate below threshold, interval past 5%", 4, [1, 7], true, "inconclusive"],
    ["above the threshold but the interval crosses 0", 8, [-1, 12], true, "inconclusive"],
    ["no change, tight interval", 0.2, [-1, 1.5], true, "unchanged"],
    ["interval exactly ±threshold is within", 0, [-5, 5], true, "unchanged"],
    ["no change, wide interval", 0.2, [-9, 9], true, "inconclusive"],
    ["no interval at this confidence", 12, undefined, true, "inconclusive"],
    ["no estimate (a zero value)", undefined, undefined, true, "inconclusive"],
  ])("%s", (_name, estimatePct, ci, biggerIsBetter, expected) => {
    expect(decideVerdict({ ...common, estimatePct, ci, biggerIsBetter }).verdict).toBe(expected);
  });

  it("an inconclusive verdict says what would decide it", () => {
    const wide = decideVerdict({ ...common, estimatePct: 0.2, ci: [-9, 9], biggerIsBetter: true });
    expect(wide.why).toMatch(
      /interval includes 0; interval \[-9.00%, \+9.00%\] not within ±5%; about \d+ more rounds would decide it/,
    );
    expect(wide.more).toBe(moreToDecide(0.2, [-9, 9], 5, 10));
    const none = decideVerdict({ ...common, n: 4, estimatePct: 12, ci: undefined, biggerIsBetter: true });
    expect(none.more).toBe(4);
    expect(none.why).toMatch(
      /no interval at this confidence with 4 rounds: about 4 more rounds would give one/,
    );
  });
});

describe("moreToDecide", () => {
  it("scales the interval as 1/sqrt(n)", () => {
    // half-width 9, room to ±5 is 4.8: n * (9/4.8)^2 = 35.2 -> 36, 26 more.
    expect(moreToDecide(0.2, [-9, 9], 5, 10)).toBe(26);
    // estimate 8 >= 5, half-width 6.5: excluding 0 needs n * (6.5/8)^2 = 6.6: 1 more at least.
    expect(moreToDecide(8, [-1, 12], 5, 10)).toBe(1);
  });

  it("gives up when the estimate sits on the threshold", () => {
    expect(moreToDecide(5, [-20, 30], 5, 10)).toBeUndefined();
  });
});
