import { decimalsFor, formatCount, formatMs, formatRps, signed } from "../render/format.js";
import type { ReportGroup } from "./model.js";
import { comparisonTable, type ComparisonMetric, type TableCell } from "./tables.js";

/** The text of a report table's cells, shared by the markdown and HTML reports. */

/** A value of a report metric: requests/sec (per CPU-second too), a count of errors, else two decimals (ms, µs, MiB). */
export function formatMetric(metric: ComparisonMetric, value: number): string {
  if (metric === "rps" || metric === "requestsPerCpuS") return formatRps(value);
  if (metric === "errors") return formatCount(value);
  return formatMs(value);
}

/** ">= " before a lower bound, "<= " before an upper one (plain text: no HTML entities). */
function boundPrefix(cell: TableCell): string {
  if (cell.bound === "lower") return ">= ";
  if (cell.bound === "upper") return "<= ";
  return "";
}

/**
 * Plain text of a table's value cell, for either renderer: the status of a column that is not
 * ok, `n/a` for a stat not measured, else the value after its bound; with `spread`, its lowest
 * and highest across the repetitions after it: `0.21 (0.19–0.24)`.
 */
export function cellText(cell: TableCell, format: (v: number) => string, spread = false): string {
  if (cell.status !== undefined) return cell.status;
  if (cell.value === undefined) return "n/a";
  const range =
    spread && cell.range !== undefined ? ` (${format(cell.range[0])}–${format(cell.range[1])})` : "";
  return `${boundPrefix(cell)}${format(cell.value)}${range}`;
}

/** What marks a change within noise (its interval includes 0, or it has none). */
export const WITHIN_NOISE = "~";

/**
 * A change after its mark (`~ ` within noise), at the decimals that write it and its interval as
 * other than 0, with its `unit`; its interval, if any, as `around` writes `+20.10 to +30.20`.
 */
function markedChange(cell: TableCell, change: number, unit: string, around: (interval: string) => string) {
  const decimals = decimalsFor([change, ...(cell.interval ?? [])]);
  const interval = cell.interval?.map((bound) => signed(bound, decimals)).join(" to ");
  const mark = cell.withinNoise === true ? `${WITHIN_NOISE} ` : "";
  return `${mark}${signed(change, decimals)}${unit}${interval === undefined ? "" : around(interval)}`;
}

/**
 * A comparison table's % change, plain text for either renderer: `+25.00% (+20.10 to +30.20)`,
 * `~ +6.63% (-3.10 to +15.20)` within noise, `~ +6.63%` without an interval; empty without a change.
 */
export function changeText(cell: TableCell): string {
  return cell.changePct === undefined ? "" : markedChange(cell, cell.changePct, "%", (i) => ` (${i})`);
}

/** A latency table's delta, plain text: `(+1.10; +0.90 to +1.30)`, `(~ +0.01)`; empty without one. */
export function deltaText(cell: TableCell): string {
  return cell.delta === undefined ? "" : `(${markedChange(cell, cell.delta, "", (i) => `; ${i}`)})`;
}

/**
 * crank compare's layout of a group's comparison table, for either renderer: metrics as rows,
 * the baseline first, and after every other proxy a column of its % change (none without a
 * baseline); `value` and `change` write a cell's value and its % change.
 */
export function comparisonGrid(
  group: ReportGroup,
  write: {
    value: (cell: TableCell, metric: ComparisonMetric) => string;
    change: (cell: TableCell) => string;
  },
): { proxies: string[]; rows: Array<{ label: string; cells: string[] }> } {
  const table = comparisonTable(group);
  const percent = table.columns.map((c) => group.baselineProblem === undefined && !c.baseline);
  return {
    proxies: table.columns.flatMap((c, i) => (percent[i] ? [c.proxy, ""] : [c.proxy])),
    rows: table.rows.map((row) => ({
      label: row.label,
      cells: row.cells.flatMap((cell, i) => {
        const value = write.value(cell, row.metric);
        return percent[i] ? [value, write.change(cell)] : [value];
      }),
    })),
  };
}
