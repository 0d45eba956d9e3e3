import { describe, expect, it } from "vitest";
import { historySeries, seriesId } from "../../../src/changes/series.js";
import type { BenchmarkData } from "../../../src/publish/datajs.js";
import { commitId, historyOf } from "../../support/changes/history.js";

describe("historySeries: the series of a data.js", () => {
  it("one per suite and bench, oldest first, with the direction of the suite's tool", () => {
    const data = historyOf([
      { suite: "passthrough latency", bench: "nginx p99", values: [1, 2, 3] },
      { suite: "passthrough latency", bench: "haproxy p99", values: [4, 5, 6] },
      { suite: "passthrough throughput", bench: "nginx req/s", biggerIsBetter: true, values: [7, 8, 9] },
    ]);
    const series = historySeries(data);
    expect(series.map((s) => [s.suite, s.bench, s.unit, s.biggerIsBetter])).toEqual([
      ["passthrough latency", "nginx p99", "ms", false],
      ["passthrough latency", "haproxy p99", "ms", false],
      ["passthrough throughput", "nginx req/s", "req/s", true],
    ]);
    expect(series[1]?.points.map((p) => p.value)).toEqual([4, 5, 6]);
    expect(series[1]?.points[2]?.commit).toEqual({
      id: commitId(2),
      url: `https://github.com/o/r/commit/${commitId(2)}`,
      date: 2000,
    });
  });

  it("skips values that are not above 0, a bench's second copy in an entry, and keeps entry positions", () => {
    const data = historyOf([{ suite: "s", bench: "b", values: [1, 0, -1, 2, 3] }]);
    const entries = data.entries.s!;
    entries[3]!.benches.push({ name: "b", value: 100, unit: "ms" });
    delete entries[4]!.commit.url;
    const [series] = historySeries(data);
    expect(series?.points.map((p) => [p.value, p.entry])).toEqual([
      [1, 0],
      [2, 3],
      [3, 4],
    ]);
    expect(series?.points[2]?.commit).toEqual({ id: commitId(4), date: 4000 });
  });

  it("a bench that starts later starts its series there; an empty history has none", () => {
    const data = historyOf([{ suite: "s", bench: "a", values: [1, 1, 1] }]);
    data.entries.s![2]!.benches.push({ name: "new", value: 5, unit: "ms" });
    expect(historySeries(data).map((s) => [s.bench, s.points.length])).toEqual([
      ["a", 3],
      ["new", 1],
    ]);
    const empty: BenchmarkData = { lastUpdate: 0, repoUrl: "", entries: {} };
    expect(historySeries(empty)).toEqual([]);
  });

  it("seriesId tells apart names that a separator would join", () => {
    expect(seriesId({ suite: "a b", bench: "c" })).not.toBe(seriesId({ suite: "a", bench: "b c" }));
  });
});
