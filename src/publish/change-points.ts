/**
 * Change points found on a gh-pages history (data.js): one series per suite and bench (a proxy x
 * scenario x metric, in github-action-benchmark's layout), the points Apache Otava's E-divisive
 * means finds on it, each with the commit range it lies in, its size, its p-value and whether it
 * is a regression by the suite's direction. Written by `proxybench changes` (JSON), drawn by the
 * chart page and filed as issues by the publishing job.
 */

/** A series of a data.js: suite (`passthrough latency`) and bench (`nginx p99`). */
export interface SeriesKey {
  suite: string;
  bench: string;
}

/** One commit of the history, as data.js records it. */
export interface HistoryCommit {
  id: string;
  /** `${repoUrl}/commit/${id}` where data.js has it. */
  url?: string;
  /** ms since the epoch, data.js's `date` of the entry. */
  date: number;
}

export interface ChangePoint {
  /** Index of the first point after the change, in the series' points (oldest first). */
  index: number;
  /** The last commit before the change and the first after it: the range that holds it. */
  before: HistoryCommit;
  after: HistoryCommit;
  /** Mean of the segment before and after (the series' unit). */
  meanBefore: number;
  meanAfter: number;
  /** (meanAfter / meanBefore - 1) x 100. */
  changePct: number;
  /** Otava's p-value of the split. */
  pValue: number;
  /** Worse by the suite's direction (customSmallerIsBetter: it rose; customBiggerIsBetter: it fell). */
  regression: boolean;
}

export interface SeriesChanges extends SeriesKey {
  unit: string;
  biggerIsBetter: boolean;
  /** Points of the series, oldest first. */
  points: number;
  changes: ChangePoint[];
}
