import { historySeries, seriesId, type HistoryPoint } from "../changes/series.js";
import type { BenchmarkData } from "../publish/datajs.js";
import { suiteName } from "../publish/entries.js";

/**
 * The history of past runs that an unpaired comparison needs to tell a change from the spread
 * between runs: the medians that `proxybench publish` appended to a gh-pages data.js, per cell
 * and metric (suite `<scenario> latency` bench `<proxy> p50`, suite `<scenario> throughput`
 * bench `<proxy> req/s`; `<proxy> [<engine>] ...` where a scenario ran several engines). Of a
 * series with change points, only the runs after its last one count: a spread taken across a
 * change would be the change's, not the runs'.
 */

/** A cell as the history names it: its scenario, load level, proxy and engine. */
type HistoryCell = Record<"scenario" | "loadLabel" | "proxy" | "engine", string>;

export interface RunHistory {
  /** Where it was read, for the notes. */
  source: string;
  /**
   * Past runs' medians of one cell and metric, each with the commit its run measured, oldest
   * first; none: the metric is not recorded.
   */
  medians(cell: HistoryCell, metric: string): Array<{ commit: string; value: number }>;
}

const BENCH_SUFFIX: Record<string, { direction: "throughput" | "latency"; suffix: string }> = {
  rps: { direction: "throughput", suffix: "req/s" },
  p50: { direction: "latency", suffix: "p50" },
  p99: { direction: "latency", suffix: "p99" },
  mean: { direction: "latency", suffix: "mean" },
};

/**
 * A history from a parsed data.js (pure); `segmentStarts` (seriesId: index; `lastSegmentStarts`
 * of src/changes/find.ts), where known, cut each series to the points from there on.
 */
export function historyFromData(
  data: BenchmarkData,
  source: string,
  segmentStarts: ReadonlyMap<string, number> = new Map(),
): RunHistory {
  const bySeries = new Map(historySeries(data).map((s) => [seriesId(s), s]));
  return {
    source,
    medians(cell, metric) {
      const kind = BENCH_SUFFIX[metric];
      if (kind === undefined) return [];
      const suite = suiteName(cell.scenario, cell.loadLabel, kind.direction);
      const names = [`${cell.proxy} ${kind.suffix}`, `${cell.proxy} [${cell.engine}] ${kind.suffix}`];
      const points: HistoryPoint[] = names.flatMap((bench) => {
        const id = seriesId({ suite, bench });
        return bySeries.get(id)?.points.slice(segmentStarts.get(id) ?? 0) ?? [];
      });
      return points.sort((a, b) => a.entry - b.entry).map((p) => ({ commit: p.commit.id, value: p.value }));
    },
  };
}
