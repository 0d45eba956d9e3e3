import { z } from "zod";

/**
 * Change points found on a gh-pages history (data.js): one series per suite and bench (a proxy x
 * scenario x metric, in github-action-benchmark's layout), the points Apache Otava's E-divisive
 * means finds on it, each with the commit range it lies in, its size, its p-value and whether it
 * is a regression by the suite's direction. Written by `proxybench changes` (JSON), drawn by the
 * chart page and filed as issues by the publishing job. The schemas check changes.js when it is
 * read back (changesjs.ts); the types are theirs.
 */

/** One commit of the history, as data.js records it. */
const HistoryCommit = z.object({
  id: z.string(),
  /** `${repoUrl}/commit/${id}` where data.js has it. */
  url: z.string().optional(),
  /** ms since the epoch, data.js's `date` of the entry. */
  date: z.number(),
});
export type HistoryCommit = z.infer<typeof HistoryCommit>;

export const ChangePoint = z.object({
  /** Index of the first point after the change, in the series' points (oldest first). */
  index: z.number().int().nonnegative(),
  /** The last commit before the change and the first after it: the range that holds it. */
  before: HistoryCommit,
  after: HistoryCommit,
  /** Mean of the segment before and after (the series' unit). */
  meanBefore: z.number(),
  meanAfter: z.number(),
  /** (meanAfter / meanBefore - 1) x 100. */
  changePct: z.number(),
  /** Otava's p-value of the split. */
  pValue: z.number(),
  /** Worse by the suite's direction (customSmallerIsBetter: it rose; customBiggerIsBetter: it fell). */
  regression: z.boolean(),
});
export type ChangePoint = z.infer<typeof ChangePoint>;

export const SeriesChanges = z.object({
  /** The series: suite (`passthrough latency`) and bench (`nginx p99`). */
  suite: z.string(),
  bench: z.string(),
  unit: z.string(),
  biggerIsBetter: z.boolean(),
  /** Points of the series, oldest first. */
  points: z.number().int().nonnegative(),
  changes: z.array(ChangePoint),
});
export type SeriesChanges = z.infer<typeof SeriesChanges>;

/** A series of a data.js: suite and bench. */
export type SeriesKey = Pick<SeriesChanges, "suite" | "bench">;
