import { describe, expect, it } from "vitest";
import { pairedLogRatios, testedMetricCount, type MeasuredCell } from "../../../src/stats/tested-metrics.js";

function measured(values: Array<[round: number, p50: number]>, cost?: number): MeasuredCell {
  return {
    load: { model: "constant-vus" },
    repetitions: values.map(([round, p50], index) => ({
      index,
      round,
      rps: 1000 / p50,
      latencyMs: { mean: p50, p50, p99: p50 * 3 },
      ...(cost !== undefined ? { proxyCost: { cpuPerRequestUs: cost, peakMemoryMiB: 10 } } : {}),
    })),
  };
}

describe("the metrics a comparison tests", () => {
  it("tests requests/sec unless the load fixes it, and the proxy's cost", () => {
    expect(testedMetricCount({ model: "constant-vus" })).toBe(6);
    expect(testedMetricCount({ model: "constant-arrival-rate" })).toBe(5);
  });

  it("pairs by round in round order, leaves out a round measured on one side, and the cost where unmeasured", () => {
    const base = measured([
      [2, 4],
      [0, 2],
      [1, 1],
    ]);
    const head = measured([
      [0, 4],
      [2, 4],
      [3, 9],
    ]);
    const p50 = pairedLogRatios(base, head).find((m) => m.metric === "p50")!;
    expect(p50).toEqual({ metric: "p50", biggerIsBetter: false, logRatios: [Math.log(2), 0], usable: true });
    expect(pairedLogRatios(base, head).map((m) => m.metric)).toEqual(["rps", "mean", "p50", "p99"]);
    const costly = pairedLogRatios(measured([[0, 1]], 40), measured([[0, 1]], 50));
    expect(costly.find((m) => m.metric === "cpuPerRequest")?.logRatios).toEqual([Math.log(50 / 40)]);
  });

  it("gives no ratio when a value is zero", () => {
    const zero = pairedLogRatios(measured([[0, 0]]), measured([[0, 1]]));
    expect(zero.find((m) => m.metric === "p50")).toMatchObject({ usable: false, logRatios: [] });
  });
});
