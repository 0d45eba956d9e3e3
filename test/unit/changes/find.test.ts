import { describe, expect, it } from "vitest";
import { changePointOf } from "../../../src/changes/find.js";
import { historySeries } from "../../../src/changes/series.js";
import { commitId, historyOf } from "../../support/changes/history.js";

const [latency, throughput] = historySeries(
  historyOf([
    { suite: "s latency", bench: "nginx p99", values: [1, 1, 1, 2, 2, 2] },
    { suite: "s throughput", bench: "nginx req/s", biggerIsBetter: true, values: [9, 9, 9, 8, 8, 8] },
  ]),
);

describe("changePointOf: Otava's split as the report gives it", () => {
  it("lies between the last commit before and the first after, its size in % of the mean before", () => {
    const change = changePointOf(latency!, { index: 3, meanBefore: 1, meanAfter: 2, pValue: 1e-6 });
    expect(change).toEqual({
      index: 3,
      before: { id: commitId(2), url: `https://github.com/o/r/commit/${commitId(2)}`, date: 2000 },
      after: { id: commitId(3), url: `https://github.com/o/r/commit/${commitId(3)}`, date: 3000 },
      meanBefore: 1,
      meanAfter: 2,
      changePct: 100,
      pValue: 1e-6,
      regression: true,
    });
  });

  it.each([
    ["latency rose", "latency", 1, 2, true],
    ["latency fell", "latency", 2, 1, false],
    ["throughput fell", "throughput", 9, 8, true],
    ["throughput rose", "throughput", 8, 9, false],
  ] as const)("%s: regression %s", (_, which, meanBefore, meanAfter, regression) => {
    const series = which === "latency" ? latency! : throughput!;
    const change = changePointOf(series, { index: 3, meanBefore, meanAfter, pValue: 0 });
    expect(change.regression).toBe(regression);
    expect(change.changePct).toBeCloseTo((meanAfter / meanBefore - 1) * 100, 10);
  });

  it("refuses an index outside the series (no commit before the first point)", () => {
    expect(() => changePointOf(latency!, { index: 0, meanBefore: 1, meanAfter: 2, pValue: 0 })).toThrow(
      /outside 6 points/,
    );
  });
});
