import type { BenchEntry, BenchmarkData } from "../../../src/publish/datajs.js";
import { TOOL_BIGGER, TOOL_SMALLER } from "../../../src/publish/entries.js";

/** A series to put in a built history: one bench of one suite, one value per commit. */
export interface SeriesSpec {
  suite: string;
  bench: string;
  biggerIsBetter?: boolean;
  unit?: string;
  values: readonly number[];
}

/** The commit id of point `i` (40 hex digits, as git's). */
export function commitId(i: number): string {
  return i.toString(16).padStart(40, "0");
}

/** A value around `level` with noise of about `cv` (a fixed pattern: the same every run). */
export function wobble(level: number, cv: number, i: number): number {
  return level * (1 + cv * Math.sin(i * 2.3 + 0.7) * 1.4);
}

/**
 * A data.js history holding these series: one entry per commit of each suite, commit `i` at date
 * `i` seconds, its URL under https://github.com/o/r. Benches of one suite share its entries.
 */
export function historyOf(specs: readonly SeriesSpec[]): BenchmarkData {
  const entries: Record<string, BenchEntry[]> = {};
  for (const spec of specs) {
    const list = (entries[spec.suite] ??= []);
    spec.values.forEach((value, i) => {
      list[i] ??= {
        commit: {
          author: {},
          committer: {},
          id: commitId(i),
          message: `commit ${i}`,
          url: `https://github.com/o/r/commit/${commitId(i)}`,
        },
        date: i * 1000,
        tool: spec.biggerIsBetter ? TOOL_BIGGER : TOOL_SMALLER,
        benches: [],
      };
      list[i].benches.push({
        name: spec.bench,
        value,
        unit: spec.unit ?? (spec.biggerIsBetter ? "req/s" : "ms"),
      });
    });
  }
  return { lastUpdate: 0, repoUrl: "https://github.com/o/r", entries };
}
