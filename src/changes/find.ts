import { parseDataJs, type BenchmarkData } from "../publish/datajs.js";
import { readUserFile } from "../util/files.js";
import { otavaChangePoints, type OtavaChange } from "./otava.js";
import { historySeries, seriesId, type HistorySeries } from "./series.js";
import type { ChangePoint, SeriesChanges } from "../publish/change-points.js";

/**
 * The change points of every series of a gh-pages history (data.js), by Apache Otava, each with
 * the commit range it lies in, its size, its p-value and whether it is a regression by the
 * suite's direction.
 */

export interface ChangeSettings {
  /** Otava's p-value threshold of a split. */
  maxPValue: number;
  /**
   * Smallest change kept, in %: Otava's magnitude, the larger of the change relative to the mean
   * before and to the mean after.
   */
  minChangePct: number;
}

/** Otava's own threshold. */
export const DEFAULT_MAX_P = 0.001;
/**
 * Below this a change is dropped. With 2% noise per point (bench:changes), a 5% step is found in
 * 99% of series at 3%, and no flat series of 200 points shows more than a fraction of a false
 * change point; at 5% the merge drops half of the 5% steps, whose estimate falls below it.
 */
export const DEFAULT_MIN_CHANGE_PCT = 3;
/** A series shorter than this is not analysed: three points on each side of a change at least. */
export const MIN_POINTS = 6;

const DEFAULTS: ChangeSettings = { maxPValue: DEFAULT_MAX_P, minChangePct: DEFAULT_MIN_CHANGE_PCT };

/** One change of a series as the report gives it: its commit range, size and direction (pure). */
export function changePointOf(series: HistorySeries, change: OtavaChange): ChangePoint {
  const before = series.points[change.index - 1];
  const after = series.points[change.index];
  if (before === undefined || after === undefined) {
    throw new Error(`a change point at ${change.index} outside ${series.points.length} points`);
  }
  const changePct = change.meanBefore === 0 ? 0 : (change.meanAfter / change.meanBefore - 1) * 100;
  return {
    index: change.index,
    before: before.commit,
    after: after.commit,
    meanBefore: change.meanBefore,
    meanAfter: change.meanAfter,
    changePct,
    pValue: change.pValue,
    regression: series.biggerIsBetter
      ? change.meanAfter < change.meanBefore
      : change.meanAfter > change.meanBefore,
  };
}

function seriesChanges(series: HistorySeries, changes: readonly OtavaChange[]): SeriesChanges {
  const { points, ...key } = series;
  return {
    ...key,
    points: points.length,
    changes: [...changes].sort((a, b) => a.index - b.index).map((c) => changePointOf(series, c)),
  };
}

/**
 * The change points of every series of `data`, suites in data.js's order; a series shorter than
 * MIN_POINTS is listed with none (its `points` tell why).
 */
export async function findChanges(
  data: BenchmarkData,
  settings: ChangeSettings = DEFAULTS,
): Promise<SeriesChanges[]> {
  const all = historySeries(data);
  const analysed = all.filter((s) => s.points.length >= MIN_POINTS);
  const found = await otavaChangePoints(
    analysed.map((s) => s.points.map((p) => p.value)),
    { maxPValue: settings.maxPValue, minMagnitude: settings.minChangePct / 100 },
  );
  const changesOf = new Map(analysed.map((s, k) => [s, found[k] ?? []]));
  return all.map((s) => seriesChanges(s, changesOf.get(s) ?? []));
}

/** A data.js read and parsed; errors name `label` (the flag or argument it came from). */
export async function readDataJs(file: string, label: string): Promise<BenchmarkData> {
  return parseDataJs(await readUserFile(file, `${label}: cannot read it`), label);
}

/** The change points of the data.js at `file`. */
export async function findChangesInFile(
  file: string,
  settings: ChangeSettings = DEFAULTS,
): Promise<SeriesChanges[]> {
  return findChanges(await readDataJs(file, file), settings);
}

/** Where each series' last segment starts: the index of its last change point (pure). */
export function lastSegmentStarts(changes: readonly SeriesChanges[]): Map<string, number> {
  const starts = new Map<string, number>();
  for (const series of changes) {
    const last = series.changes.at(-1);
    if (last !== undefined) starts.set(seriesId(series), last.index);
  }
  return starts;
}
