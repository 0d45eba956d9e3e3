import type { ReportGroup } from "./model.js";
import { comparisonTable, type ComparisonMetric, type TableCell } from "./tables.js";

/** Number formatting shared by the markdown and HTML reports (en-US digits, fixed decimals). */

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const twoDecimals = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Requests per second: whole numbers from 100 up (crank's `322,349`), two decimals below. */
export function formatRps(value: number): string {
  return Math.abs(value) >= 100 ? integer.format(value) : twoDecimals.format(value);
}

/** Milliseconds with two decimals. */
export function formatMs(value: number): string {
  return twoDecimals.format(value);
}

/**
 * A count. A median of an even number of counts can be a half: whole from 100 up (a count of
 * requests reads `45,240`, not `45,239.50`), two decimals below (0.50 bad responses is not 1).
 */
export function formatCount(value: number): string {
  return Number.isInteger(value) || Math.abs(value) >= 100
    ? integer.format(value)
    : twoDecimals.format(value);
}

/** Fixed-decimal formats by their decimals (2 to 4: decimalsFor), made once. */
const fixedDecimals = new Map(
  [2, 3, 4].map((d) => [
    d,
    new Intl.NumberFormat("en-US", { minimumFractionDigits: d, maximumFractionDigits: d }),
  ]),
);

function signed(value: number, decimals = 2): string {
  const rounded = Number(value.toFixed(decimals));
  const sign = rounded < 0 ? "-" : "+";
  return `${sign}${fixedDecimals.get(decimals)!.format(Math.abs(rounded))}`;
}

/**
 * The decimals (2 to 4) that write every one of `values` that is not 0 as other than 0, so that a
 * change and its interval never read `+0.00` where they are not: `-0.02 to -0.004`.
 */
function decimalsFor(values: readonly number[]): number {
  const smallest = Math.min(...values.filter((v) => v !== 0 && Number.isFinite(v)).map(Math.abs));
  if (!Number.isFinite(smallest)) return 2;
  // v rounds to 0 at d decimals when v < 0.5 * 10^-d
  return Math.min(4, Math.max(2, Math.ceil(-Math.log10(2 * smallest))));
}

/** A signed % change with two decimals: `+48.63%`, `-32.83%`, `+0.00%`. */
export function formatPercent(value: number): string {
  return `${signed(value)}%`;
}

/** A p-value: three decimals, `<0.001` below that. */
export function formatPValue(p: number): string {
  return p < 0.001 ? "<0.001" : p.toFixed(3);
}

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

/** A change's mark: `~ ` within noise, else nothing. */
function noiseMark(cell: TableCell): string {
  return cell.withinNoise === true ? `${WITHIN_NOISE} ` : "";
}

/** An interval as the tables write it: `+20.10 to +30.20`. */
function intervalText([low, high]: readonly [number, number], decimals: number): string {
  return `${signed(low, decimals)} to ${signed(high, decimals)}`;
}

/**
 * A comparison table's % change, plain text for either renderer: `+25.00% (+20.10 to +30.20)`,
 * `~ +6.63% (-3.10 to +15.20)` within noise, `~ +6.63%` without an interval; empty without a change.
 */
export function changeText(cell: TableCell): string {
  if (cell.changePct === undefined) return "";
  const decimals = decimalsFor([cell.changePct, ...(cell.interval ?? [])]);
  const interval = cell.interval === undefined ? "" : ` (${intervalText(cell.interval, decimals)})`;
  return `${noiseMark(cell)}${signed(cell.changePct, decimals)}%${interval}`;
}

/** A latency table's delta, plain text: `(+1.10; +0.90 to +1.30)`, `(~ +0.01)`; empty without one. */
export function deltaText(cell: TableCell): string {
  if (cell.delta === undefined) return "";
  const decimals = decimalsFor([cell.delta, ...(cell.interval ?? [])]);
  const interval = cell.interval === undefined ? "" : `; ${intervalText(cell.interval, decimals)}`;
  return `(${noiseMark(cell)}${signed(cell.delta, decimals)}${interval})`;
}

/** A confidence as a percentage: `95%`, `99.58%`. */
export function formatConfidence(confidence: number): string {
  const percent = confidence * 100;
  return `${Number.isInteger(percent) ? percent : percent.toFixed(2).replace(/0+$/, "")}%`;
}

/** A false-alarm rate in a sentence: 0.05, or 0.0083 for 0.05 shared by six. */
export function formatAlpha(alpha: number): string {
  return String(Number(alpha.toPrecision(2)));
}

/** `1 round`, `3 rounds`: a count and its noun. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
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
