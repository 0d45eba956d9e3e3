import { readFile } from "node:fs/promises";
import { parseDataJs, type BenchmarkData } from "../publish/datajs.js";
import { suiteName } from "../publish/entries.js";
import { UserError } from "../util/errors.js";

/**
 * The history of past runs that an unpaired comparison needs to tell a change from the spread
 * between runs: the medians that `proxybench publish` appended to a gh-pages data.js, per cell
 * and metric (suite `<scenario> latency` bench `<proxy> p50`, suite `<scenario> throughput`
 * bench `<proxy> req/s`; `<proxy> [<engine>] ...` where a scenario ran several engines).
 */

export interface HistoryCell {
  scenario: string;
  loadLabel: string;
  proxy: string;
  engine: string;
}

interface PastMedian {
  /** The commit the run measured. */
  commit: string;
  value: number;
}

export interface RunHistory {
  /** Where it was read, for the notes. */
  source: string;
  /** Past runs' medians of one cell and metric, oldest first; none: the metric is not recorded. */
  medians(cell: HistoryCell, metric: string): PastMedian[];
}

const BENCH_SUFFIX: Record<string, { direction: "throughput" | "latency"; suffix: string }> = {
  rps: { direction: "throughput", suffix: "req/s" },
  p50: { direction: "latency", suffix: "p50" },
  p99: { direction: "latency", suffix: "p99" },
  mean: { direction: "latency", suffix: "mean" },
};

/** A history from a parsed data.js (pure). */
export function historyFromData(data: BenchmarkData, source: string): RunHistory {
  return {
    source,
    medians(cell, metric) {
      const kind = BENCH_SUFFIX[metric];
      if (kind === undefined) return [];
      const entries = data.entries[suiteName(cell.scenario, cell.loadLabel, kind.direction)] ?? [];
      const names = [`${cell.proxy} ${kind.suffix}`, `${cell.proxy} [${cell.engine}] ${kind.suffix}`];
      const out: PastMedian[] = [];
      for (const entry of entries) {
        const bench = entry.benches.find((b) => names.includes(b.name));
        if (bench !== undefined && Number.isFinite(bench.value) && bench.value > 0) {
          out.push({ commit: entry.commit.id, value: bench.value });
        }
      }
      return out;
    },
  };
}

/** `--history FILE`: a gh-pages data.js; errors name the file. */
export async function readHistory(file: string): Promise<RunHistory> {
  const text = await readFile(file, "utf8").catch((err: unknown) => {
    throw new UserError(`--history ${file}: cannot read it (${(err as Error).message})`);
  });
  return historyFromData(parseDataJs(text, `--history ${file}`), file);
}
