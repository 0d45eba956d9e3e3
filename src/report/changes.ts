import type { Cell, Repetition } from "../results/schema.js";
import { holdsSteal, type StealRule } from "../stats/steal.js";
import { COMPARE_METRICS, fixedByLoad, runningMaximum } from "../stats/tested-metrics.js";
import { judgeDifferences, measuredTogether, type Difference, type DifferenceMember } from "./differences.js";
import type { LatencyStat, ProxyCostValues, ReportColumn, ReportGroup } from "./model.js";

/**
 * The changes a report group's two tables show against its baseline proxy, each with what the
 * noise allows (src/report/differences.ts): the family is every change the group shows, one
 * test per proxy and figure (requests per CPU-second is the inverse of CPU per request: one
 * test, its interval inverted), but for what compare never tests either: requests/sec under a
 * fixed arrival rate and a peak memory that is a running maximum.
 */

/** A figure a table can show of a proxy, and its change against the baseline. */
export type Figure = "rps" | LatencyStat | "errors" | "cpuPerRequest" | "requestsPerCpuS" | "peakMemory";

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

/** Every figure, in the tables' order. */
export const FIGURES: readonly Figure[] = [
  "rps",
  "min",
  "mean",
  "p50",
  "p90",
  "p95",
  "p99",
  "max",
  "errors",
  "cpuPerRequest",
  "requestsPerCpuS",
  "peakMemory",
];

const COST_FIGURE = {
  cpuPerRequest: "cpuPerRequestUs",
  requestsPerCpuS: "requestsPerCpuS",
  peakMemory: "peakMemoryMiB",
} as const satisfies Partial<Record<Figure, keyof ProxyCostValues>>;

function isCost(figure: Figure): figure is keyof typeof COST_FIGURE {
  return figure in COST_FIGURE;
}

/** A figure of one repetition; undefined where it was not measured. */
export function repetitionFigure(r: Repetition, figure: Figure): number | undefined {
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
  const base = group.columns.find((c) => c.proxy === group.baseline);
  if (group.baselineProblem !== undefined || base === undefined || base.status !== "ok" || base.bound)
    return [];
  const baseCell = cellOf(base);
  const members: GroupMember[] = [];
  if (baseCell === undefined) return members;
  for (const column of group.columns) {
    const cell = cellOf(column);
    if (column === base || column.status !== "ok" || column.bound || cell === undefined) continue;
    if (!measuredTogether(baseCell, cell)) continue;
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
