import { describe, expect, it } from "vitest";
import {
  ALL_METRICS,
  logRatios,
  pairedTwins,
  PRIMARY_METRICS,
  testedSet,
  testedSpecs,
  type CompareMetric,
  type MeasuredCell,
} from "../../../src/stats/tested-metrics.js";

/** The tested metrics of a base cell and its head twin, paired by round, as compare and the runner pair them. */
function paired(base: MeasuredCell, head: MeasuredCell, tested: readonly CompareMetric[]) {
  return pairedTwins(base, head, 0, tested);
}

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
  it("of every metric: requests/sec unless the load fixes it, and the proxy's cost", () => {
    expect(testedSpecs({ model: "constant-vus" }, ALL_METRICS)).toHaveLength(6);
    expect(testedSpecs({ model: "constant-arrival-rate" }, ALL_METRICS)).toHaveLength(5);
  });

  it("a new run tests CPU per request and p99; a run recorded before the setting, every metric", () => {
    expect(testedSpecs({ model: "constant-arrival-rate" }, PRIMARY_METRICS)).toHaveLength(2);
    expect(testedSet({ testedMetrics: ["p50"] })).toEqual(["p50"]);
    expect(testedSet({})).toEqual(ALL_METRICS);
    const base = measured([[0, 1]], 40);
    const head = measured([[0, 2]], 50);
    expect(paired(base, head, PRIMARY_METRICS).map((m) => m.spec.metric)).toEqual(["p99", "cpuPerRequest"]);
    // `direct` has no proxy cost: only p99 is left
    expect(paired(measured([[0, 1]]), measured([[0, 2]]), PRIMARY_METRICS).map((m) => m.spec.metric)).toEqual(
      ["p99"],
    );
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
    const p50 = paired(base, head, ALL_METRICS).find((m) => m.spec.metric === "p50")!;
    expect(p50).toMatchObject({ spec: { metric: "p50", biggerIsBetter: false }, usable: true });
    expect(logRatios(p50.pairs)).toEqual([Math.log(2), 0]);
    expect(paired(base, head, ALL_METRICS).map((m) => m.spec.metric)).toEqual(["rps", "mean", "p50", "p99"]);
    const costly = paired(measured([[0, 1]], 40), measured([[0, 1]], 50), ALL_METRICS);
    expect(logRatios(costly.find((m) => m.spec.metric === "cpuPerRequest")!.pairs)).toEqual([
      Math.log(50 / 40),
    ]);
  });

  it("gives no ratio when a value is zero", () => {
    const zero = paired(measured([[0, 0]]), measured([[0, 1]]), ALL_METRICS);
    expect(zero.find((m) => m.spec.metric === "p50")).toMatchObject({ usable: false });
  });
});
