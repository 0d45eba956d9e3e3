import { describe, expect, it } from "vitest";
import { seriesId } from "../../../src/changes/series.js";
import type { SeriesChanges } from "../../../src/publish/change-points.js";
import { lastSegmentStarts } from "../../../src/changes/find.js";
import { historyFromData } from "../../../src/report/compare-history.js";
import { commitId, historyOf } from "../../support/changes/history.js";

const cell = { scenario: "small", loadLabel: "default", proxy: "nginx", engine: "k6" };

describe("historyFromData: past runs' medians of a cell and metric", () => {
  const data = historyOf([
    { suite: "small latency", bench: "nginx p50", values: [5, 5, 5, 6, 6, 6] },
    { suite: "small throughput", bench: "nginx req/s", biggerIsBetter: true, values: [9, 9, 9, 9, 9, 9] },
  ]);

  it("every point of the series, oldest first, without segments", () => {
    const history = historyFromData(data, "data.js");
    expect(history.medians(cell, "p50").map((m) => m.value)).toEqual([5, 5, 5, 6, 6, 6]);
    expect(history.medians(cell, "p50")[0]?.commit).toBe(commitId(0));
    expect(history.medians(cell, "rps")).toHaveLength(6);
    expect(history.medians(cell, "p99")).toEqual([]);
    expect(history.medians(cell, "cpuPerRequest")).toEqual([]);
  });

  it("a series with a change point: the points from its last one on, never across it", () => {
    const starts = new Map([[seriesId({ suite: "small latency", bench: "nginx p50" }), 3]]);
    const history = historyFromData(data, "data.js", starts);
    expect(history.medians(cell, "p50")).toEqual([3, 4, 5].map((i) => ({ commit: commitId(i), value: 6 })));
    // another series of the same cell keeps all its points
    expect(history.medians(cell, "rps")).toHaveLength(6);
  });

  it("the bench named with the engine (a scenario run by several) counts too, in entry order", () => {
    const both = historyOf([{ suite: "small latency", bench: "nginx [k6] p50", values: [4, 4] }]);
    expect(
      historyFromData(both, "data.js")
        .medians(cell, "p50")
        .map((m) => m.value),
    ).toEqual([4, 4]);
  });
});

describe("lastSegmentStarts", () => {
  it("the index of each series' last change point; none for a series without", () => {
    const change = (index: number) => ({
      index,
      before: { id: "a", date: 0 },
      after: { id: "b", date: 1 },
      meanBefore: 1,
      meanAfter: 2,
      changePct: 100,
      pValue: 0,
      regression: true,
    });
    const series = (bench: string, indexes: number[]): SeriesChanges => ({
      suite: "s",
      bench,
      unit: "ms",
      biggerIsBetter: false,
      points: 50,
      changes: indexes.map(change),
    });
    const starts = lastSegmentStarts([series("a", [10, 30]), series("b", [])]);
    expect([...starts]).toEqual([[seriesId({ suite: "s", bench: "a" }), 30]]);
  });
});
