import type { BenchEntry, BenchmarkData } from "../publish/datajs.js";
import { TOOL_BIGGER } from "../publish/entries.js";
import type { HistoryCommit, SeriesChanges, SeriesKey } from "../publish/change-points.js";

/**
 * The series of a data.js (pure): one per suite and bench name, its points oldest first as the
 * suite's entries hold them. A point is an entry that has the bench with a finite value above 0
 * (every figure proxybench publishes is: a latency, a rate, a cost); the first bench of that name
 * in an entry counts. The direction is the suite's `tool` in its newest entry holding the bench.
 */

export interface HistoryPoint {
  value: number;
  commit: HistoryCommit;
  /** Position of the point's entry in the suite's list. */
  entry: number;
}

/** A series as its change points describe it (suite, bench, unit, direction), with its points. */
export type HistorySeries = Omit<SeriesChanges, "points" | "changes"> & { points: HistoryPoint[] };

function commitOf(entry: BenchEntry): HistoryCommit {
  const { id, url } = entry.commit;
  return url === undefined ? { id, date: entry.date } : { id, url, date: entry.date };
}

/** The series of one suite, in the order their benches first appear. */
function suiteSeries(suite: string, entries: readonly BenchEntry[]): HistorySeries[] {
  const bySeries = new Map<string, HistorySeries>();
  entries.forEach((entry, position) => {
    const seen = new Set<string>();
    for (const bench of entry.benches) {
      if (seen.has(bench.name) || !Number.isFinite(bench.value) || bench.value <= 0) continue;
      seen.add(bench.name);
      const series = bySeries.get(bench.name) ?? {
        suite,
        bench: bench.name,
        unit: bench.unit,
        biggerIsBetter: false,
        points: [],
      };
      series.unit = bench.unit;
      series.biggerIsBetter = entry.tool === TOOL_BIGGER;
      series.points.push({ value: bench.value, commit: commitOf(entry), entry: position });
      bySeries.set(bench.name, series);
    }
  });
  return [...bySeries.values()];
}

/** Every series of every suite, suites in data.js's order. */
export function historySeries(data: BenchmarkData): HistorySeries[] {
  return Object.entries(data.entries).flatMap(([suite, entries]) => suiteSeries(suite, entries));
}

/** The key of a series in a map: suite and bench, which may hold any text. */
export function seriesId(key: SeriesKey): string {
  return JSON.stringify([key.suite, key.bench]);
}
