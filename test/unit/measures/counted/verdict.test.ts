import { describe, expect, it } from "vitest";
import { compareCounts, spreadPct } from "../../../../src/measures/counted/compare.js";

describe("compareCounts", () => {
  const base = [27849.7, 27849.7, 27843.0];

  it("calls a change larger than the floor and 3 x the spread", () => {
    const r = compareCounts(base, [28128, 28130, 28129]);
    expect(r.verdict).toBe("more-work");
    expect(r.changePct).toBeCloseTo(1.0, 1);
    expect(compareCounts([28128, 28130, 28129], base).verdict).toBe("less-work");
  });

  it("is unchanged for identical or nearly identical counts", () => {
    expect(compareCounts(base, base).verdict).toBe("unchanged");
    expect(compareCounts(base, [27850.1, 27844, 27849]).verdict).toBe("unchanged");
  });

  it("does not call a change under the floor, however clean", () => {
    const r = compareCounts([1000, 1000], [1004, 1004]);
    expect(r.changePct).toBeCloseTo(0.4, 5);
    expect(r.verdict).toBe("unchanged");
    expect(compareCounts([1000, 1000], [1004, 1004], { floorPct: 0.3 }).verdict).toBe("more-work");
  });

  it("is inconclusive when the change is within several times the spread", () => {
    const r = compareCounts([1000, 1010, 990], [1030, 1040, 1020]);
    expect(r.spreadPct).toBeCloseTo(2, 5);
    expect(r.verdict).toBe("inconclusive");
    expect(r.why).toMatch(/within 3 x the spread/);
    expect(compareCounts([1000, 1010, 990], [1030, 1040, 1020], { spreadFactor: 1 }).verdict).toBe(
      "more-work",
    );
  });

  it("is inconclusive, not unchanged, when the spread is too wide to rule out a change", () => {
    const r = compareCounts([1000, 1010, 990], [1000, 1010, 990]);
    expect(r.verdict).toBe("inconclusive");
    expect(r.why).toMatch(/larger than the floor/);
  });

  it("needs two repetitions a side", () => {
    const r = compareCounts([1000], [2000, 2000]);
    expect(r.verdict).toBe("inconclusive");
    expect(r.why).toMatch(/1 vs 2 repetitions/);
  });
});

describe("spreadPct", () => {
  it("is the range over the median", () => {
    expect(spreadPct([99, 100, 101])).toBeCloseTo(2, 10);
    expect(spreadPct([5])).toBe(0);
  });
});
