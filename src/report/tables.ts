import type { CellStatus } from "../results/schema.js";
import type { Difference } from "./differences.js";
import {
  columnFigure,
  comparesFigure,
  isCost,
  LATENCY_STATS,
  type Figure,
  type LatencyStat,
  type ReportColumn,
  type ReportGroup,
} from "./model.js";

/**
 * The two tables of a report group, as data. A cell of a column that is not ok carries its
 * status and no value, so no renderer can show a number for it.
 */

/** The figures the comparison table has a row for; the proxy's cost only where a column of the group has it. */
export type ComparisonMetric = Exclude<Figure, "min" | "p90" | "p95">;

const COMPARISON_ROWS: ReadonlyArray<{ metric: ComparisonMetric; label: string }> = [
  { metric: "rps", label: "Requests/sec" },
  { metric: "mean", label: "Mean latency (ms)" },
  { metric: "p50", label: "p50 latency (ms)" },
  { metric: "p99", label: "p99 latency (ms)" },
  { metric: "max", label: "Max latency (ms)" },
  { metric: "errors", label: "Errors/bad responses" },
  { metric: "cpuPerRequest", label: "Proxy CPU/request (µs)" },
  { metric: "requestsPerCpuS", label: "Requests/CPU-second" },
  { metric: "peakMemory", label: "Proxy peak memory (MiB)" },
];

export interface TableCell {
  /** Set when the column is ok and the value was measured. */
  value?: number;
  /** The value's spread across the repetitions: the lowest and the highest. */
  range?: [number, number];
  /** Signed % change against the baseline ((v - base) / base * 100); absent for the baseline. */
  changePct?: number;
  /** Delta against the baseline in the value's unit (latency table: ms). */
  delta?: number;
  /**
   * The change's interval, paired by round (src/report/model.ts): in % beside changePct, in
   * the value's unit beside delta (the interval of the ratio times the baseline's median).
   */
  interval?: [number, number];
  /**
   * Set with every change: true when the noise allows it (its interval includes 0, or there is
   * no interval), false when it is more than the noise explains.
   */
  withinNoise?: boolean;
  /** The column's status when it is not ok: shown instead of any number. */
  status?: Exclude<CellStatus, "ok">;
  /** A loadgen-bound column's figure: the real one is at least (lower) or at most (upper) this. */
  bound?: "lower" | "upper";
}

/** The latency table's column headings. */
export const LATENCY_LABELS: Record<LatencyStat, string> = {
  min: "Min (ms)",
  mean: "Mean (ms)",
  p50: "p50 (ms)",
  p90: "p90 (ms)",
  p95: "p95 (ms)",
  p99: "p99 (ms)",
  max: "Max (ms)",
};

/** What the proxy's cost rows are, for the notes under a group that shows them. */
export const COST_NOTE =
  "Proxy CPU/request: CPU time (user + system) of all the proxy's processes and threads over the measured window (its idle rate taken off the engine's start-up and exit), per request; Requests/CPU-second is its inverse. Proxy peak memory: natively the sum of the proxy's processes' peak resident sets during the repetition; in docker the container's peak memory charge during the repetition (sampled where the kernel cannot reset it).";

/** Whether the group shows any of the proxy's cost rows. */
export function showsCost(group: ReportGroup): boolean {
  return comparisonRows(group).some(({ metric }) => isCost(metric));
}

/** The rows of a group: the cost rows only where some column measured that figure. */
function comparisonRows(group: ReportGroup): typeof COMPARISON_ROWS {
  return COMPARISON_ROWS.filter(
    ({ metric }) => !isCost(metric) || group.columns.some((c) => columnFigure(c, metric) !== undefined),
  );
}

/** (v - base) / base * 100, or undefined when it has no meaning (no base, base 0). */
export function percentChange(value: number | undefined, base: number | undefined): number | undefined {
  const finite = value !== undefined && base !== undefined && Number.isFinite(value) && Number.isFinite(base);
  return finite && base !== 0 ? ((value - base) / base) * 100 : undefined;
}

/** Where a loadgen-bound column's figure sits: req/s at least, latency at most. */
function boundOf(column: ReportColumn, metric: ComparisonMetric | "latency"): TableCell["bound"] {
  // the proxy's cost is what it spent on the requests it got, whatever the load generator's limit
  if (!column.bound || metric === "errors" || (metric !== "latency" && isCost(metric))) return undefined;
  return metric === "rps" ? "lower" : "upper";
}

/**
 * A column's cell of a figure: only its status when it is not ok, else the value (if finite),
 * its spread across the repetitions and its bound.
 */
function valueCell(column: ReportColumn, figure: Figure, metric: ComparisonMetric | "latency"): TableCell {
  if (column.status !== "ok" && !column.bound) return { status: column.status };
  const cell: TableCell = {};
  const value = columnFigure(column, figure);
  if (value !== undefined && Number.isFinite(value)) cell.value = value;
  const range = column.values?.ranges?.[figure];
  if (cell.value !== undefined && range !== undefined) cell.range = range;
  const bound = boundOf(column, metric);
  if (bound) cell.bound = bound;
  return cell;
}

/**
 * What the noise allows of a change (paired by round; undefined: none could be): its interval (in %
 * times `scale`) and whether it is within noise.
 */
export function noiseOf(change: Difference | undefined, scale = 1) {
  const out: Pick<TableCell, "interval" | "withinNoise"> = { withinNoise: change?.differs !== true };
  if (change?.ci !== undefined) out.interval = [change.ci[0] * scale, change.ci[1] * scale];
  return out;
}

function baselineColumn(group: ReportGroup): ReportColumn | undefined {
  if (group.baselineProblem !== undefined) return undefined;
  return group.columns.find((c) => c.proxy === group.baseline);
}

export function comparisonTable(group: ReportGroup) {
  const base = baselineColumn(group);
  return {
    columns: group.columns.map((c) => ({
      proxy: c.proxy,
      status: c.status,
      repetitions: c.repetitions,
      baseline: c.proxy === group.baseline,
    })),
    rows: comparisonRows(group).map(({ metric, label }) => ({
      metric,
      label,
      cells: group.columns.map((column) => {
        const cell = valueCell(column, metric, metric);
        const change =
          column === base || !comparesFigure(metric)
            ? undefined
            : percentChange(cell.value, columnFigure(base, metric));
        if (cell.status === undefined && change !== undefined)
          Object.assign(cell, { changePct: change }, noiseOf(column.changes?.[metric]));
        return cell;
      }),
    })),
  };
}

export function latencyTable(group: ReportGroup) {
  const base = baselineColumn(group);
  return {
    stats: LATENCY_STATS,
    rows: group.columns.map((column) => ({
      proxy: column.proxy,
      status: column.status,
      baseline: column.proxy === group.baseline,
      cells: LATENCY_STATS.map((stat) => {
        const cell = valueCell(column, stat, "latency");
        const baseValue = base?.values?.latencyMs[stat];
        const compared = base !== undefined && column !== base && comparesFigure(stat);
        if (compared && cell.value !== undefined && baseValue !== undefined) {
          const noise = noiseOf(column.changes?.[stat], baseValue / 100);
          Object.assign(cell, { delta: cell.value - baseValue }, noise);
        }
        return cell;
      }),
    })),
  };
}
