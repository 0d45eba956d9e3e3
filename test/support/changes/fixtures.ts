import type { ChangePoint, SeriesChanges } from "../../../src/publish/change-points.js";

/** A commit sha made of one repeated hex digit (`sha(3)` = 40 threes). */
export const sha = (i: number | string) => `${i}`.repeat(40).slice(0, 40);

/** Names that try every way GitHub has of making text live, as a suite or bench could be named. */
export const HOSTILE_NAMES = [
  "@octocat [approve](https://evil.example) <img src=x onerror=alert(1)>",
  "cell | injected | row `code` **bold**",
  "line one\n# heading\r\n<!-- x --> --> see #1 and acme/other#2",
  "</details><script>alert(1)</script>",
];

/** A change point between commits `before` and `after` (`changePct` % on a mean of 100). */
export function changePoint(
  before: string,
  after: string,
  changePct: number,
  options: { pValue?: number; regression?: boolean; index?: number } = {},
): ChangePoint {
  return {
    index: options.index ?? 5,
    before: { id: before, date: Date.parse("2026-11-01T00:00:00Z") },
    after: { id: after, date: Date.parse("2026-11-02T00:00:00Z") },
    meanBefore: 100,
    meanAfter: 100 * (1 + changePct / 100),
    changePct,
    pValue: options.pValue ?? 0.0004,
    regression: options.regression ?? changePct > 0,
  };
}

/** A latency series (smaller is better) with these change points. */
export function series(suite: string, bench: string, changes: ChangePoint[]): SeriesChanges {
  return { suite, bench, unit: "ms", biggerIsBetter: false, points: 30, changes };
}
