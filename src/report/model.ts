import { median } from "simple-statistics";
import { usesTls } from "../results/protocols.js";
import type { Cell, CellStatus, Load, Repetition, Results } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import { holdsSteal, stealRuleOf, stealToName, type StealRule } from "../stats/steal.js";
import { COMPARE_METRICS, fixedByLoad, runningMaximum } from "../stats/tested-metrics.js";
import {
  judgeDifferences,
  measuredTogether,
  type Difference,
  type DifferenceFamily,
  type DifferenceMember,
} from "./differences.js";

/**
 * The report as data: what `proxybench report --format json` prints and what the markdown and
 * HTML renderers draw. Built from a results.json (`buildReport`) or from raw k6 summaries
 * (`src/report/k6-summary.ts`).
 */

export const LATENCY_STATS = ["min", "mean", "p50", "p90", "p95", "p99", "max"] as const;
export type LatencyStat = (typeof LATENCY_STATS)[number];

/** Medians over the measured repetitions of one ok cell; a missing stat was not measured. */
interface ColumnValues {
  rps: number;
  latencyMs: Partial<Record<LatencyStat, number>>;
  /** Transport errors, non-2xx responses and failed checks. */
  errors: number;
  /** Every repetition's value, for intervals (whiskers) across repetitions. */
  perRepetition: { rps: number[]; p99Ms: number[] };
  /** Extra latency percentiles (median over repetitions), keyed by percent. */
  percentilesMs: Record<string, number>;
  /** The proxy's own cost (median over repetitions), where every repetition measured it. */
  cost?: ProxyCostValues;
  /** Each figure's spread across the repetitions: lowest and highest (where every one has it). */
  ranges?: Partial<Record<Figure, [number, number]>>;
}

/** The proxy's cost figures (src/measures/wall-clock/proxy-cost.ts): each repetition's proxyCost field. */
const COST_FIGURE = {
  cpuPerRequest: "cpuPerRequestUs",
  requestsPerCpuS: "requestsPerCpuS",
  peakMemory: "peakMemoryMiB",
} as const satisfies Partial<Record<Figure, string>>;

/** Medians of a cell's repetitions' proxyCost figures; a figure absent was not measured. */
type ProxyCostValues = Partial<Record<(typeof COST_FIGURE)[keyof typeof COST_FIGURE], number>>;

/** `combine` of the values (`valueOf`) of each of `keys` that every repetition has. */
function ofEvery<K extends string, T>(
  reps: readonly Repetition[],
  keys: Iterable<K>,
  valueOf: (r: Repetition, key: K) => number | undefined,
  combine: (values: number[]) => T,
): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of keys) {
    const values = reps.map((r) => valueOf(r, key));
    if (values.length > 0 && values.every((v) => v !== undefined)) out[key] = combine(values);
  }
  return out;
}

/** The lowest and the highest of `values`. */
export function spanOf(values: readonly number[]): [number, number] {
  return [Math.min(...values), Math.max(...values)];
}

export interface ReportColumn {
  proxy: string;
  cellId?: string;
  status: CellStatus;
  reasons: string[];
  repetitions: number;
  proxyVersion?: string;
  /**
   * Present when status is ok, or loadgen-bound with repetitions: then `bound` is set and the
   * numbers are bounds (req/s at least, latency at most). Never for any other status.
   */
  values?: ColumnValues;
  bound?: boolean;
  /**
   * Each change of this column against the baseline, with what the noise allows: paired by
   * round with the baseline's cell (`withChanges`, below). Absent for the baseline, and where
   * no change could be paired (no repetitions in rounds, a column not ok).
   */
  changes?: Partial<Record<Figure, Difference>>;
}

export interface ReportGroup {
  scenario: string;
  /** The variant of a variant run: each variant's cells form their own group. */
  variant?: string;
  load?: Load;
  engine?: string;
  /** The column every % and delta is computed against; undefined when there is none. */
  baseline?: string;
  /** Why there are no % changes in this group (baseline missing or not ok), if so. */
  baselineProblem?: string;
  /** What the values are, when not medians over repetitions (e.g. single k6 runs). */
  valuesNote?: string;
  columns: ReportColumn[];
  /** The family of the changes the group shows, paired by round (absent: none could be paired). */
  noise?: DifferenceFamily;
}

export interface ReportModel {
  header: ReturnType<typeof buildHeader>;
  groups: ReportGroup[];
}

export interface ReportOptions {
  /** Proxy to compare against; default `direct` when it ran, else the first proxy. */
  baselineProxy?: string;
}

const DEFAULT_BASELINE = "direct";

/** The median of a cell's values over its repetitions; NaN when there is none. */
export function medianOf(values: number[]): number {
  return values.length === 0 ? NaN : median(values);
}

/** Median values of an ok cell's repetitions. */
function cellValues(cell: Cell): ColumnValues {
  const reps = cell.repetitions;
  const keys = new Set(reps.flatMap((r) => Object.keys(r.latencyPercentilesMs ?? {})));
  return {
    rps: medianOf(reps.map((r) => r.rps)),
    latencyMs: ofEvery(reps, LATENCY_STATS, (r, stat) => r.latencyMs[stat], medianOf),
    errors: medianOf(reps.map((r) => r.errors + r.non2xx + r.checkFailures)),
    perRepetition: { rps: reps.map((r) => r.rps), p99Ms: reps.map((r) => r.latencyMs.p99) },
    percentilesMs: ofEvery(reps, keys, (r, key) => r.latencyPercentilesMs?.[key], medianOf),
    cost: ofEvery(reps, Object.values(COST_FIGURE), (r, figure) => r.proxyCost?.[figure], medianOf),
    // each figure's spread over the repetitions that all have it, finite
    ranges: ofEvery(reps, FIGURES, (r, figure) => finite(repetitionFigure(r, figure)), spanOf),
  };
}

/** At most this many reasons per column are shown; the rest are counted. */
const MAX_REASONS = 3;

/**
 * A cell's reasons for display: duplicates removed, at most MAX_REASONS, then "and N more"
 * (repetitions often repeat the same reason with other numbers).
 */
export function displayReasons(reasons: readonly string[]): string[] {
  const unique = [...new Set(reasons)];
  if (unique.length <= MAX_REASONS) return unique;
  return [...unique.slice(0, MAX_REASONS), `and ${unique.length - MAX_REASONS} more`];
}

/**
 * A column's name: the proxy, and over TLS the protocol too (`nginx (https)`), so that a run with
 * --tls shows TLS rows beside the cleartext ones of the same proxy. Pure.
 */
export function columnName(cell: Pick<Cell, "proxy" | "protocol">): string {
  return usesTls(cell.protocol) ? `${cell.proxy} (${cell.protocol})` : cell.proxy;
}

/** One column per cell; numbers only for an ok cell that has repetitions. */
export function cellColumn(cell: Cell, proxyVersion?: string): ReportColumn {
  const column: ReportColumn = {
    proxy: columnName(cell),
    cellId: cell.id,
    status: cell.status,
    reasons: displayReasons(cell.reasons),
    repetitions: cell.repetitions.length,
  };
  const version = cell.proxyVersion ?? proxyVersion;
  if (version !== undefined) column.proxyVersion = version;
  if (cell.status === "ok" && cell.repetitions.length === 0) {
    column.status = "invalid";
    column.reasons.push("no measured repetitions");
  }
  const bound = column.status === "loadgen-bound" && cell.repetitions.length > 0;
  if (column.status === "ok" || bound) column.values = cellValues(cell);
  if (bound) column.bound = true;
  return column;
}

/** `--baseline-proxy` names a proxy of the run: a typo is an error listing the run's proxies. */
export function checkBaselineProxy(name: string, results: Pick<Results, "cells" | "settings">): void {
  const known = [...new Set([...results.settings.proxies, ...results.cells.map((c) => c.proxy)])];
  if (known.includes(name)) return;
  throw new UserError(
    `--baseline-proxy: '${name}' is not a proxy of this run (its proxies: ${known.join(", ")})`,
  );
}

/**
 * Picks the baseline of a group: the requested proxy, or `direct`, or the first column. A
 * baseline that is missing or not ok gives no substitute: the group has no % changes and says why.
 */
export function chooseBaseline(
  columns: readonly ReportColumn[],
  requested: string | undefined,
): { baseline?: string; baselineProblem?: string } {
  const name =
    requested ?? (columns.some((c) => c.proxy === DEFAULT_BASELINE) ? DEFAULT_BASELINE : columns[0]?.proxy);
  if (name === undefined) return { baselineProblem: "no proxy ran" };
  const column = columns.find((c) => c.proxy === name);
  if (column === undefined) return { baselineProblem: `baseline ${name} did not run in this scenario` };
  if (column.status !== "ok" && !column.bound) {
    return { baseline: name, baselineProblem: `baseline ${name} is ${column.status}: no changes computed` };
  }
  return { baseline: name };
}

/** Baseline first, the others in their given order. */
export function orderColumns<C extends { proxy: string }>(columns: readonly C[], baseline?: string) {
  const first = columns.filter((c) => c.proxy === baseline);
  return [...first, ...columns.filter((c) => c.proxy !== baseline)];
}

function groupKey(cell: Cell): string {
  return `${cell.scenario}\u0000${cell.load.label}\u0000${cell.engine}\u0000${cell.variant ?? ""}`;
}

/** Which cores each part ran on, each list written by `list` (default: `0,1`, or `any`). */
export function describeLayout(
  cpus: Results["settings"]["cpus"],
  list = (xs: readonly number[]) => (xs.length ? xs.join(",") : "any"),
): string {
  return `load generator ${list(cpus.loadgen)}, proxy ${list(cpus.proxy)}, upstream ${list(cpus.upstream)}`;
}

export function buildHeader(results: Results) {
  const env = results.environment;
  // label/value pairs, in order: environment, commit, CPU layout...
  const facts: Array<[string, string]> = [["Run", `${results.runId} (${results.startedAt})`]];
  const git = env.git;
  if (git.commit !== undefined) {
    let commit = git.commit.slice(0, 12);
    if (git.branch !== undefined) commit += ` on ${git.branch}`;
    if (git.dirty === true) commit += " (uncommitted changes)";
    facts.push(["Commit", commit]);
    if (git.message !== undefined) facts.push(["Message", git.message.split("\n")[0] ?? ""]);
  }
  facts.push(
    ["CPU", `${env.cpuModel}, ${env.cores} cores${env.governor ? `, governor ${env.governor}` : ""}`],
    ["System", `${env.os} ${env.arch}, kernel ${env.kernel}`],
    ["CPU layout", describeLayout(results.settings.cpus)],
    ["Repetitions", String(results.settings.repetitions)],
    ["Runtime", results.settings.runtime],
  );
  const proxies = new Map<string, string>(Object.entries(env.proxies));
  for (const cell of results.cells) {
    if (cell.proxyVersion !== undefined && !proxies.has(cell.proxy))
      proxies.set(cell.proxy, cell.proxyVersion);
  }
  const versions = (named: Array<[string, string]>) => named.map(([name, v]) => `${name} ${v}`).join(", ");
  if (proxies.size > 0) facts.push(["Proxies", versions([...proxies])]);
  const tools = Object.entries(env.tools);
  if (tools.length > 0) facts.push(["Tools", versions(tools)]);
  facts.push(["Load average", env.loadAverage.map((x) => x.toFixed(2)).join(" ")]);
  const steal = stealToName(results.cells, stealRuleOf(results));
  if (steal !== undefined) {
    facts.push([
      "Steal",
      `${steal.range} of the pinned cores, median over ${steal.repetitions} repetitions (the hypervisor ran something else; not noise by itself): ${steal.cpu}; latency holds it`,
    ]);
  }
  if (env.ci?.runUrl !== undefined) facts.push(["CI run", env.ci.runUrl]);
  return {
    title: results.settings.study ? `proxybench: ${results.settings.study}` : "proxybench results",
    facts,
    skipped: [...results.skipped],
  };
}

/** Groups cells by scenario, load level and engine, in the order they first appear. */
export function buildReport(results: Results, options: ReportOptions = {}): ReportModel {
  const groups = new Map<string, Cell[]>();
  for (const cell of results.cells) {
    const key = groupKey(cell);
    const list = groups.get(key);
    if (list) list.push(cell);
    else groups.set(key, [cell]);
  }
  const order = results.settings.proxies;
  // by proxy, a proxy's TLS column (`nginx (https)`) right after its cleartext one
  const rank = (column: string) => {
    const proxy = column.split(" ")[0] ?? column;
    const i = order.indexOf(proxy) + (proxy === column ? 0 : 0.5);
    return i < 0 ? order.length : i;
  };
  const byRank = (a: ReportColumn, b: ReportColumn) => rank(a.proxy) - rank(b.proxy);
  const out = [...groups.values()].map((cells): ReportGroup => {
    const first = cells[0]!;
    const measured = cells.map((c) => cellColumn(c, results.environment.proxies[c.proxy]));
    const chosen = chooseBaseline([...measured].sort(byRank), options.baselineProxy);
    const columns = [...measured, ...skippedColumns(results.skipped, measured, first.scenario)].sort(byRank);
    return {
      scenario: first.scenario,
      load: first.load,
      engine: first.engine,
      columns: orderColumns(columns, chosen.baseline),
      ...(first.variant !== undefined ? { variant: first.variant } : {}),
      ...chosen,
    };
  });
  return { header: buildHeader(results), groups: withChanges(out, results.cells, stealRuleOf(results)) };
}

/**
 * A `skipped` column for each proxy that was not run, in every group of its scenario (every group
 * when it ran on no scenario); never a number.
 */
function skippedColumns(
  skipped: Results["skipped"],
  measured: readonly ReportColumn[],
  scenario?: string,
): ReportColumn[] {
  return skipped
    .filter((s) => s.scenario === undefined || scenario === undefined || s.scenario === scenario)
    .filter((s) => !measured.some((c) => c.proxy === s.proxy))
    .map((s) => ({ proxy: s.proxy, status: "skipped", reasons: [s.reason], repetitions: 0 }));
}

/**
 * The changes a report group's two tables show against its baseline proxy, each with what the
 * noise allows (src/report/differences.ts): the family is every change the group shows, one
 * test per proxy and figure (requests per CPU-second is the inverse of CPU per request: one
 * test, its interval inverted), but for what compare never tests either: requests/sec under a
 * fixed arrival rate and a peak memory that is a running maximum.
 */

/** Every figure a table can show of a proxy (and its change against the baseline), in the tables' order. */
const FIGURES = [
  "rps",
  ...LATENCY_STATS,
  "errors",
  "cpuPerRequest",
  "requestsPerCpuS",
  "peakMemory",
] as const;

export type Figure = (typeof FIGURES)[number];

/**
 * The extremes of a repetition's latencies: the fastest request and the slowest, one request
 * each. The tables show them with their spread across the repetitions, never a change: an
 * extreme is one sample, its change over a run's rounds carries no figure a reader can act on, and
 * testing it spends the family's false-alarm rate (a `min` 0.05 ms apart was the only change of
 * 13 identical-proxy runs shown as real).
 */
const EXTREMES: ReadonlySet<Figure> = new Set<Figure>(["min", "max"]);

/** Whether the tables show a change of this figure against the baseline. */
export function comparesFigure(figure: Figure): boolean {
  return !EXTREMES.has(figure);
}

/** Whether a figure is one of the proxy's cost. */
export function isCost(figure: Figure): figure is keyof typeof COST_FIGURE {
  return figure in COST_FIGURE;
}

/** A figure of one repetition; undefined where it was not measured. */
function repetitionFigure(r: Repetition, figure: Figure): number | undefined {
  if (figure === "rps") return r.rps;
  if (figure === "errors") return r.errors + r.non2xx + r.checkFailures;
  if (isCost(figure)) return r.proxyCost?.[COST_FIGURE[figure]];
  return r.latencyMs[figure];
}

/** A column's figure: the median over its repetitions; undefined where it has none. */
export function columnFigure(column: ReportColumn | undefined, figure: Figure): number | undefined {
  const values = column?.values;
  if (values === undefined) return undefined;
  if (figure === "rps") return values.rps;
  if (figure === "errors") return values.errors;
  if (isCost(figure)) return values.cost?.[COST_FIGURE[figure]];
  return values.latencyMs[figure];
}

/** Requests per CPU-second: the inverse of CPU per request, so the same test, inverted. */
const INVERSE: Partial<Record<Figure, Figure>> = { requestsPerCpuS: "cpuPerRequest" };

function inversePct(pct: number): number {
  return (1 / (1 + pct / 100) - 1) * 100;
}

function inverseDifference(d: Difference): Difference {
  const out: Difference = { ...d };
  if (d.estimatePct !== undefined) out.estimatePct = inversePct(d.estimatePct);
  if (d.ci !== undefined) out.ci = [inversePct(d.ci[1]), inversePct(d.ci[0])];
  return out;
}

/** `x` when it is a finite number, else undefined. */
const finite = (x: number | undefined) => (Number.isFinite(x) ? x : undefined);

const positive = (x: number | undefined): boolean => x !== undefined && Number.isFinite(x) && x > 0;

interface GroupMember {
  column: ReportColumn;
  figure: Figure;
  member: DifferenceMember;
}

/**
 * Whether compare would leave this figure untested between these cells: requests/sec under a
 * fixed arrival rate (the load fixes it), a peak memory read since the process started (a
 * running maximum). The tables show its change as within noise, outside the family.
 */
function untestedByCompare(figure: Figure, base: Cell, other: Cell): boolean {
  const spec = COMPARE_METRICS.find((s) => s.metric === figure);
  return spec !== undefined && (fixedByLoad(spec, other.load) || runningMaximum(spec, [base, other]));
}

/** One test per proxy and figure the group shows a change of (both medians positive). */
function groupMembers(
  group: ReportGroup,
  cellOf: (c: ReportColumn) => Cell | undefined,
  steal: StealRule | undefined,
): GroupMember[] {
  // the cell of a column that is ok (not a bound)
  const okCell = (c: ReportColumn | undefined) => (c?.status === "ok" && !c.bound ? cellOf(c) : undefined);
  const base = group.columns.find((c) => c.proxy === group.baseline);
  const baseCell = group.baselineProblem === undefined ? okCell(base) : undefined;
  if (baseCell === undefined) return [];
  const members: GroupMember[] = [];
  for (const column of group.columns) {
    const cell = okCell(column);
    if (column === base || cell === undefined || !measuredTogether(baseCell, cell)) continue;
    for (const figure of FIGURES) {
      if (INVERSE[figure] !== undefined || !comparesFigure(figure)) continue;
      if (untestedByCompare(figure, baseCell, cell)) continue;
      if (!positive(columnFigure(column, figure)) || !positive(columnFigure(base, figure))) continue;
      const value = (r: Repetition) => repetitionFigure(r, figure);
      const member: DifferenceMember = { base: baseCell, other: cell, value };
      if (steal !== undefined && holdsSteal(figure, steal.accounting)) member.stealLimit = steal.limit;
      members.push({ column, figure, member });
    }
  }
  return members;
}

/** A column with its judged changes (and requests per CPU-second's, CPU per request's inverted). */
function withColumnChanges(column: ReportColumn, judged: ReadonlyArray<[GroupMember, Difference]>) {
  const changes: Partial<Record<Figure, Difference>> = {};
  for (const [m, d] of judged) if (m.column === column) changes[m.figure] = d;
  for (const [figure, of] of Object.entries(INVERSE) as Array<[Figure, Figure]>) {
    const d = changes[of];
    if (d !== undefined && positive(columnFigure(column, figure))) changes[figure] = inverseDifference(d);
  }
  return Object.keys(changes).length === 0 ? column : { ...column, changes };
}

/**
 * The groups of one run with each change's interval on its column (`changes`) and the family's
 * figures (`noise`), every change of every group judged as one family, as compare judges every
 * metric of every cell: so the chance of any change shown as real when none is stays at alpha
 * for all that the run's tables show. A group without a baseline, or without a change between
 * two ok columns of cells, stays as it was. With the run's `steal` rule, a round of steal above
 * its limit is left out of the tests of the figures that hold stolen time, as compare leaves it.
 */
export function withChanges(
  groups: readonly ReportGroup[],
  cells: readonly Cell[],
  steal?: StealRule,
): ReportGroup[] {
  const byId = new Map(cells.map((c) => [c.id, c]));
  const cellOf = (c: ReportColumn) => (c.cellId === undefined ? undefined : byId.get(c.cellId));
  const perGroup = groups.map((group) => groupMembers(group, cellOf, steal));
  const all = perGroup.flat();
  if (all.length === 0) return [...groups];
  const { family, differences } = judgeDifferences(all.map((m) => m.member));
  let next = 0;
  return groups.map((group, g) => {
    const judged = perGroup[g]!.map((m): [GroupMember, Difference] => [m, differences[next++]!]);
    if (judged.length === 0) return group;
    const rounds = Math.min(...judged.map(([, d]) => d.rounds));
    const columns = group.columns.map((column) => withColumnChanges(column, judged));
    return { ...group, columns, noise: { ...family, rounds } };
  });
}
