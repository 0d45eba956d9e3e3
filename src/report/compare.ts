import { median } from "simple-statistics";
import type { Cell, Results } from "../results/schema.js";
import { hodgesLehmannPercentChange } from "../stats/hodges-lehmann.js";
import { mannWhitneyU, minimumExactP } from "../stats/mann-whitney.js";
import { displayReasons } from "./model.js";
import { percentChange } from "./tables.js";

/**
 * Candidate (head) against baseline (base), cell by cell (joined on the cell id) and metric by
 * metric: medians of the repetitions, % change, a 95% Hodges-Lehmann interval for the change
 * (on the ratio scale), a two-sided Mann-Whitney U p-value, and a verdict that needs
 * significance, an effect above the threshold and an interval that excludes zero.
 */

export type Verdict = "improved" | "regressed" | "unchanged" | "inconclusive";
export const VERDICTS: readonly Verdict[] = ["regressed", "improved", "unchanged", "inconclusive"];

export type CompareMetric = "rps" | "mean" | "p50" | "p99";

export const COMPARE_METRICS: ReadonlyArray<{
  metric: CompareMetric;
  label: string;
  biggerIsBetter: boolean;
}> = [
  { metric: "rps", label: "Requests/sec", biggerIsBetter: true },
  { metric: "mean", label: "Mean latency (ms)", biggerIsBetter: false },
  { metric: "p50", label: "p50 latency (ms)", biggerIsBetter: false },
  { metric: "p99", label: "p99 latency (ms)", biggerIsBetter: false },
];

export interface CompareOptions {
  /** Smallest |% change| that counts as a change (default 5). */
  thresholdPct?: number;
  /** Significance level of the Mann-Whitney test (default 0.05). */
  alpha?: number;
  /** Confidence of the interval (default 0.95). */
  confidence?: number;
}

export interface SampleSummary {
  median: number;
  n: number;
  values: number[];
}

export interface MetricComparison {
  metric: CompareMetric;
  label: string;
  biggerIsBetter: boolean;
  base: SampleSummary;
  head: SampleSummary;
  /** (head - base) / base * 100 of the medians; undefined when the base median is 0. */
  changePct?: number;
  /** Hodges-Lehmann interval of the % change (ratio of head to base values, minus 1). */
  ci?: [number, number];
  /** Confidence the interval actually reaches (U is discrete: at least the one asked for). */
  ciConfidence?: number;
  /** Hodges-Lehmann estimate of the % change (median of the pairwise ratios). */
  hlChangePct?: number;
  p: number;
  pMethod: "exact" | "normal";
  verdict: Verdict;
  /** Why the verdict is what it is, in a few words. */
  why: string;
}

export interface CellComparison {
  id: string;
  scenario: string;
  loadLabel: string;
  proxy: string;
  engine: string;
  metrics: MetricComparison[];
}

export interface NotCompared {
  id: string;
  scenario: string;
  loadLabel: string;
  proxy: string;
  engine: string;
  reason: string;
}

export interface RunInfo {
  runId: string;
  commit?: string;
  branch?: string;
  message?: string;
  repetitions: number;
}

export interface Comparison {
  thresholdPct: number;
  alpha: number;
  confidence: number;
  base: RunInfo;
  head: RunInfo;
  cells: CellComparison[];
  notCompared: NotCompared[];
  counts: Record<Verdict, number>;
  /** Warnings that apply to the whole comparison (too few repetitions, different machines). */
  notes: string[];
}

export const DEFAULT_THRESHOLD_PCT = 5;
export const DEFAULT_ALPHA = 0.05;

function values(cell: Cell, metric: CompareMetric): number[] {
  return cell.repetitions.map((r) => (metric === "rps" ? r.rps : r.latencyMs[metric]));
}

function summary(xs: number[]): SampleSummary {
  return { median: median(xs), n: xs.length, values: xs };
}

function pct(x: number): string {
  return `${x >= 0 ? "+" : ""}${x.toFixed(2)}%`;
}

/** The verdict rule, on its own so it can be tested with a table of cases. */
export function decideVerdict(input: {
  changePct: number | undefined;
  ci: [number, number] | undefined;
  p: number;
  biggerIsBetter: boolean;
  thresholdPct: number;
  alpha: number;
}): { verdict: Verdict; why: string } {
  const { changePct, ci, p, biggerIsBetter, thresholdPct, alpha } = input;
  if (changePct === undefined)
    return { verdict: "inconclusive", why: "no % change: the base median is zero" };
  if (ci === undefined)
    return { verdict: "inconclusive", why: "no interval: too few repetitions or a zero value" };
  const excludesZero = ci[0] > 0 || ci[1] < 0;
  const sameSide = (ci[0] > 0 && changePct > 0) || (ci[1] < 0 && changePct < 0);
  if (p < alpha && Math.abs(changePct) > thresholdPct && excludesZero && sameSide) {
    const better = biggerIsBetter ? changePct > 0 : changePct < 0;
    return {
      verdict: better ? "improved" : "regressed",
      why: `p < ${alpha}, |change| > ${thresholdPct}%, interval excludes 0`,
    };
  }
  if (ci[0] >= -thresholdPct && ci[1] <= thresholdPct) {
    return { verdict: "unchanged", why: `interval within ±${thresholdPct}%` };
  }
  const reasons: string[] = [];
  if (p >= alpha) reasons.push(`p ≥ ${alpha}`);
  if (Math.abs(changePct) <= thresholdPct) reasons.push(`|change| ≤ ${thresholdPct}%`);
  if (!excludesZero) reasons.push("interval includes 0");
  reasons.push(`interval [${pct(ci[0])}, ${pct(ci[1])}] not within ±${thresholdPct}%`);
  return { verdict: "inconclusive", why: reasons.join(", ") };
}

export function compareMetric(
  base: number[],
  head: number[],
  spec: { metric: CompareMetric; label: string; biggerIsBetter: boolean },
  options: Required<CompareOptions>,
): MetricComparison {
  const b = summary(base);
  const h = summary(head);
  const changePct = percentChange(h.median, b.median);
  const hl = hodgesLehmannPercentChange(base, head, options.confidence);
  const ci: [number, number] | undefined = hl === undefined ? undefined : [hl.low, hl.high];
  const test = mannWhitneyU(head, base);
  const decided = decideVerdict({
    changePct,
    ci,
    p: test.p,
    biggerIsBetter: spec.biggerIsBetter,
    thresholdPct: options.thresholdPct,
    alpha: options.alpha,
  });
  const out: MetricComparison = {
    ...spec,
    base: b,
    head: h,
    p: test.p,
    pMethod: test.method,
    verdict: decided.verdict,
    why: decided.why,
  };
  if (changePct !== undefined) out.changePct = changePct;
  if (hl !== undefined) {
    out.ci = [hl.low, hl.high];
    out.ciConfidence = hl.confidence;
    out.hlChangePct = hl.estimate;
  }
  return out;
}

function runInfo(results: Results): RunInfo {
  const git = results.environment.git;
  const info: RunInfo = { runId: results.runId, repetitions: results.settings.repetitions };
  if (git.commit !== undefined) info.commit = git.commit;
  if (git.branch !== undefined) info.branch = git.branch;
  if (git.message !== undefined) info.message = git.message.split("\n")[0] ?? "";
  return info;
}

function describeStatus(cell: Cell): string {
  return cell.reasons.length ? `${cell.status} (${displayReasons(cell.reasons).join("; ")})` : cell.status;
}

function where(cell: Cell) {
  return {
    id: cell.id,
    scenario: cell.scenario,
    loadLabel: cell.load.label,
    proxy: cell.proxy,
    engine: cell.engine,
  };
}

function machineNotes(base: Results, head: Results): string[] {
  const notes: string[] = [];
  const b = base.environment;
  const h = head.environment;
  if (b.cpuModel !== h.cpuModel || b.cores !== h.cores) {
    notes.push(
      `Base and head ran on different machines (${b.cpuModel}, ${b.cores} cores against ${h.cpuModel}, ${h.cores} cores): differences may come from the machine.`,
    );
  }
  return notes;
}

export function compareResults(base: Results, head: Results, options: CompareOptions = {}): Comparison {
  const settings: Required<CompareOptions> = {
    thresholdPct: options.thresholdPct ?? DEFAULT_THRESHOLD_PCT,
    alpha: options.alpha ?? DEFAULT_ALPHA,
    confidence: options.confidence ?? 0.95,
  };
  const baseCells = new Map(base.cells.map((c) => [c.id, c]));
  const headIds = new Set(head.cells.map((c) => c.id));
  const cells: CellComparison[] = [];
  const notCompared: NotCompared[] = [];
  const counts: Record<Verdict, number> = { regressed: 0, improved: 0, unchanged: 0, inconclusive: 0 };
  const sizes = new Set<string>();
  const loadNotes: string[] = [];
  let smallestMinimumP = 0;

  for (const headCell of head.cells) {
    const baseCell = baseCells.get(headCell.id);
    if (baseCell === undefined) {
      notCompared.push({ ...where(headCell), reason: "only in head (new cell)" });
      continue;
    }
    const problems: string[] = [];
    if (baseCell.status !== "ok") problems.push(`base is ${describeStatus(baseCell)}`);
    if (headCell.status !== "ok") problems.push(`head is ${describeStatus(headCell)}`);
    if (problems.length === 0 && (baseCell.repetitions.length === 0 || headCell.repetitions.length === 0)) {
      problems.push("no measured repetitions");
    }
    if (problems.length > 0) {
      notCompared.push({ ...where(headCell), reason: problems.join("; ") });
      continue;
    }
    if (JSON.stringify(baseCell.load) !== JSON.stringify(headCell.load)) {
      loadNotes.push(
        `${headCell.id}: the load differs between base (${JSON.stringify(baseCell.load)}) and head (${JSON.stringify(headCell.load)}): the change may come from the load, not the proxy.`,
      );
    }
    const n1 = headCell.repetitions.length;
    const n2 = baseCell.repetitions.length;
    sizes.add(`${n2} vs ${n1}`);
    smallestMinimumP = Math.max(smallestMinimumP, minimumExactP(n1, n2));
    const metrics = COMPARE_METRICS.map((spec) =>
      compareMetric(values(baseCell, spec.metric), values(headCell, spec.metric), spec, settings),
    );
    for (const m of metrics) counts[m.verdict] += 1;
    cells.push({ ...where(headCell), metrics });
  }
  for (const baseCell of base.cells) {
    if (!headIds.has(baseCell.id))
      notCompared.push({ ...where(baseCell), reason: "only in base (missing in head)" });
  }

  const notes = [...machineNotes(base, head), ...loadNotes];
  if (cells.length > 0 && smallestMinimumP >= settings.alpha) {
    notes.push(
      `With ${[...sizes].join(", ")} repetitions the smallest possible Mann-Whitney p-value is ${smallestMinimumP.toFixed(3)}, not below alpha ${settings.alpha}: no regression or improvement can be shown (nor, with 3 against 3, a 95% interval). Run 5 or more repetitions on each side for a verdict at alpha 0.05.`,
    );
  }
  return {
    thresholdPct: settings.thresholdPct,
    alpha: settings.alpha,
    confidence: settings.confidence,
    base: runInfo(base),
    head: runInfo(head),
    cells,
    notCompared,
    counts,
    notes,
  };
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "2 regressions, 1 improvement, 9 unchanged, 1 inconclusive" (and cells not compared, if any). */
export function comparisonHeadline(comparison: Comparison): string {
  const c = comparison.counts;
  const parts = [
    plural(c.regressed, "regression", "regressions"),
    plural(c.improved, "improvement", "improvements"),
    `${c.unchanged} unchanged`,
    `${c.inconclusive} inconclusive`,
  ];
  if (comparison.notCompared.length > 0) parts.push(`${comparison.notCompared.length} not compared`);
  return parts.join(", ");
}

export function hasRegression(comparison: Comparison): boolean {
  return comparison.counts.regressed > 0;
}
