import { median } from "simple-statistics";
import { cellKey, type Cell, type Repetition, type Results } from "../results/schema.js";
import { hodgesLehmannPercentChange, intervalRank } from "../stats/hodges-lehmann.js";
import { mannWhitneyU } from "../stats/mann-whitney.js";
import { decideVerdict, type Verdict } from "../stats/verdict.js";
import { hodgesLehmannPaired, pairsNeededFor, wilcoxonSignedRank } from "../stats/wilcoxon.js";
import { UserError } from "../util/errors.js";
import { displayReasons } from "./model.js";
import { percentChange } from "./tables.js";

/**
 * Candidate (head) against baseline (base), cell by cell and metric by metric, in one of two
 * modes:
 * - paired (one run holding variants, `compareVariants`): the repetitions of base and head of
 *   one round form a pair; per pair the log ratio head/base; an exact Wilcoxon signed-rank test
 *   and the Hodges-Lehmann estimate of the ratio with its interval;
 * - unpaired (two runs made at different times, `compareResults`): Mann-Whitney U and the
 *   two-sample Hodges-Lehmann interval, labelled as such everywhere it is shown.
 * Either way the interval is at the family's confidence, 1 - alpha/m with m every tested metric
 * of every compared cell (Bonferroni), and the verdict follows src/stats/verdict.ts.
 */

export type { Verdict } from "../stats/verdict.js";

type CompareMetric = "rps" | "mean" | "p50" | "p99";

const COMPARE_METRICS: ReadonlyArray<{
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
  /** False-alarm rate of the whole comparison (default 0.05). */
  alpha?: number;
}

interface SampleSummary {
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
  /** Interval of the % change at the family's confidence. */
  ci?: [number, number];
  /** Confidence the interval actually reaches (the tests are discrete: at least the family's). */
  ciConfidence?: number;
  /** Hodges-Lehmann estimate of the % change: what the verdict weighs against the threshold. */
  hlChangePct?: number;
  /** Unadjusted two-sided p-value (Wilcoxon signed-rank when paired, Mann-Whitney U otherwise). */
  p: number;
  pMethod: "exact" | "normal";
  /** Pairs (paired) or the smaller sample (unpaired). */
  n: number;
  verdict: Verdict;
  /** Why the verdict is what it is, in a few words. */
  why: string;
  /** For an inconclusive metric: about how many more rounds or repetitions would decide it. */
  more?: number;
}

/** Which cell: its id and what the id is made of. */
interface CellIdentity {
  id: string;
  scenario: string;
  loadLabel: string;
  proxy: string;
  engine: string;
  /** The machine that measured both sides (results merged from shards). */
  runner?: string;
}

export interface CellComparison extends CellIdentity {
  metrics: MetricComparison[];
  /** Set when base and head ran different scenario settings (a variant's own scenario). */
  scenarioDiffers?: string;
}

interface NotCompared extends CellIdentity {
  reason: string;
}

export interface RunInfo {
  runId: string;
  variant?: string;
  commit?: string;
  branch?: string;
  message?: string;
  repetitions: number;
}

export interface Comparison {
  mode: "paired" | "unpaired";
  /** "paired over 10 rounds" or "unpaired: runs at different times": shown in every output. */
  label: string;
  thresholdPct: number;
  alpha: number;
  /** The family's confidence: 1 - alpha / tests. */
  confidence: number;
  /** Tested metrics over all compared cells (the Bonferroni m). */
  tests: number;
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
const UNPAIRED_LABEL = "unpaired: runs at different times";

function metricValue(r: Repetition, metric: CompareMetric): number {
  return metric === "rps" ? r.rps : r.latencyMs[metric];
}

function summary(xs: number[]): SampleSummary {
  return { median: xs.length ? median(xs) : 0, n: xs.length, values: xs };
}

function toPct(logRatio: number): number {
  return (Math.exp(logRatio) - 1) * 100;
}

type MetricSpec = (typeof COMPARE_METRICS)[number];

interface FamilyLevel {
  thresholdPct: number;
  confidence: number;
  alpha: number;
}

function finish(
  spec: MetricSpec,
  base: number[],
  head: number[],
  test: { p: number; method: "exact" | "normal"; n: number; nNeeded: number; unit: string },
  hl: { estimate: number; low?: number; high?: number; confidence?: number } | undefined,
  level: FamilyLevel,
): MetricComparison {
  const b = summary(base);
  const h = summary(head);
  const changePct = percentChange(h.median, b.median);
  const ci: [number, number] | undefined =
    hl?.low !== undefined && hl.high !== undefined ? [hl.low, hl.high] : undefined;
  const decided = decideVerdict({
    estimatePct: hl?.estimate,
    ci,
    biggerIsBetter: spec.biggerIsBetter,
    thresholdPct: level.thresholdPct,
    n: test.n,
    nNeeded: test.nNeeded,
    unit: test.unit,
  });
  const out: MetricComparison = {
    ...spec,
    base: b,
    head: h,
    p: test.p,
    pMethod: test.method,
    n: test.n,
    verdict: decided.verdict,
    why: decided.why,
  };
  if (changePct !== undefined) out.changePct = changePct;
  if (hl !== undefined) out.hlChangePct = hl.estimate;
  if (ci !== undefined) {
    out.ci = ci;
    if (hl?.confidence !== undefined) out.ciConfidence = hl.confidence;
  }
  if (decided.more !== undefined) out.more = decided.more;
  return out;
}

/** One metric of two independent samples (two runs). */
function compareMetric(
  base: number[],
  head: number[],
  spec: MetricSpec,
  level: FamilyLevel,
): MetricComparison {
  const positive = [...base, ...head].every((v) => v > 0);
  const hl = positive ? hodgesLehmannPercentChange(base, head, level.confidence) : undefined;
  const test = mannWhitneyU(head, base);
  const n = Math.min(base.length, head.length);
  const tested = { ...test, n, nNeeded: repetitionsNeeded(level.confidence), unit: "repetitions" };
  return finish(spec, base, head, tested, hl, level);
}

/** One metric of pairs (base, head) measured in the same round. */
function comparePairedMetric(
  pairs: Array<[number, number]>,
  spec: MetricSpec,
  level: FamilyLevel,
): MetricComparison {
  const base = pairs.map(([b]) => b);
  const head = pairs.map(([, h]) => h);
  const usable = pairs.filter(([b, h]) => b > 0 && h > 0);
  const logRatios = usable.map(([b, h]) => Math.log(h / b));
  const test = wilcoxonSignedRank(logRatios);
  const hl = usable.length === pairs.length ? hodgesLehmannPaired(logRatios, level.confidence) : undefined;
  const hlPct = hl && {
    estimate: toPct(hl.estimate),
    ...(hl.low !== undefined ? { low: toPct(hl.low) } : {}),
    ...(hl.high !== undefined ? { high: toPct(hl.high) } : {}),
    ...(hl.confidence !== undefined ? { confidence: hl.confidence } : {}),
  };
  const tested = { ...test, n: pairs.length, nNeeded: pairsNeededFor(1 - level.confidence), unit: "rounds" };
  return finish(spec, base, head, tested, hlPct, level);
}

/** Fewest repetitions on each side that give a two-sample interval at this confidence. */
function repetitionsNeeded(confidence: number): number {
  for (let n = 2; n <= 30; n++) if (intervalRank(n, n, confidence).k >= 1) return n;
  return 30;
}

function runInfo(results: Results, variant?: string): RunInfo {
  const git = results.environment.git;
  const info: RunInfo = { runId: results.runId, repetitions: results.settings.repetitions };
  if (variant !== undefined) info.variant = variant;
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
    id: cellKey(cell),
    scenario: cell.scenario,
    loadLabel: cell.load.label,
    proxy: cell.proxy,
    engine: cell.engine,
    ...(cell.runner !== undefined ? { runner: cell.runner } : {}),
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

/** Why a pair of cells cannot be compared; undefined when it can. */
function cannotCompare(base: Cell, head: Cell): string | undefined {
  const problems: string[] = [];
  if (base.status !== "ok") problems.push(`base is ${describeStatus(base)}`);
  if (head.status !== "ok") problems.push(`head is ${describeStatus(head)}`);
  if (problems.length === 0 && (base.repetitions.length === 0 || head.repetitions.length === 0)) {
    problems.push("no measured repetitions");
  }
  return problems.length > 0 ? problems.join("; ") : undefined;
}

interface Matched {
  pairs: Array<{ base: Cell; head: Cell }>;
  notCompared: NotCompared[];
}

/** Joins head cells to base cells on their key (the id without the variant). */
function matchCells(baseCells: readonly Cell[], headCells: readonly Cell[]): Matched {
  const byKey = new Map(baseCells.map((c) => [cellKey(c), c]));
  const headKeys = new Set(headCells.map((c) => cellKey(c)));
  const out: Matched = { pairs: [], notCompared: [] };
  for (const head of headCells) {
    const base = byKey.get(cellKey(head));
    const reason = base === undefined ? "only in head (new cell)" : cannotCompare(base, head);
    if (base === undefined || reason !== undefined)
      out.notCompared.push({ ...where(head), reason: reason ?? "" });
    else out.pairs.push({ base, head });
  }
  for (const base of baseCells) {
    if (!headKeys.has(cellKey(base)))
      out.notCompared.push({ ...where(base), reason: "only in base (missing in head)" });
  }
  return out;
}

function familyLevel(tests: number, options: CompareOptions): FamilyLevel {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  return {
    alpha,
    thresholdPct: options.thresholdPct ?? DEFAULT_THRESHOLD_PCT,
    confidence: 1 - alpha / Math.max(1, tests),
  };
}

function countVerdicts(cells: readonly CellComparison[]): Record<Verdict, number> {
  const counts: Record<Verdict, number> = { regressed: 0, improved: 0, unchanged: 0, inconclusive: 0 };
  for (const c of cells) for (const m of c.metrics) counts[m.verdict] += 1;
  return counts;
}

function loadNote(base: Cell, head: Cell): string | undefined {
  if (JSON.stringify(base.load) === JSON.stringify(head.load)) return undefined;
  return `${cellKey(head)}: the load differs between base (${JSON.stringify(base.load)}) and head (${JSON.stringify(head.load)}): the change may come from the load, not the proxy.`;
}

/** Two runs made at different times: independent samples, labelled unpaired. */
export function compareResults(base: Results, head: Results, options: CompareOptions = {}): Comparison {
  const matched = matchCells(base.cells, head.cells);
  const level = familyLevel(matched.pairs.length * COMPARE_METRICS.length, options);
  const cells = matched.pairs.map(({ base: b, head: h }) => ({
    ...where(h),
    metrics: COMPARE_METRICS.map((spec) =>
      compareMetric(
        b.repetitions.map((r) => metricValue(r, spec.metric)),
        h.repetitions.map((r) => metricValue(r, spec.metric)),
        spec,
        level,
      ),
    ),
  }));
  const notes = [
    `Unpaired: base and head ran at different times, so drift between the runs (other work on the machine, frequency, caches) is counted as change. Run both in one run with --variant for a paired comparison.`,
    ...machineNotes(base, head),
    ...matched.pairs
      .map(({ base: b, head: h }) => loadNote(b, h))
      .filter((n): n is string => n !== undefined),
  ];
  const needed = repetitionsNeeded(level.confidence);
  const fewest = Math.min(
    ...matched.pairs.map((p) => Math.min(p.base.repetitions.length, p.head.repetitions.length)),
  );
  if (cells.length > 0 && fewest < needed) {
    notes.push(
      `With ${fewest} repetitions no interval at ${formatConfidence(level.confidence)} exists (${matched.pairs.length * COMPARE_METRICS.length} tests at alpha ${formatAlpha(level.alpha)}): no regression or improvement can be shown. Run ${needed} or more repetitions on each side.`,
    );
  }
  return {
    mode: "unpaired",
    label: UNPAIRED_LABEL,
    thresholdPct: level.thresholdPct,
    alpha: level.alpha,
    confidence: level.confidence,
    tests: matched.pairs.length * COMPARE_METRICS.length,
    base: runInfo(base),
    head: runInfo(head),
    cells,
    notCompared: matched.notCompared,
    counts: countVerdicts(cells),
    notes,
  };
}

/** The variants a paired comparison takes: the names asked for, else base/head, else the first two. */
/** What picking variants reads of a run: wall-clock (results.json) or counted (instructions.json). */
export interface VariantRun {
  runId: string;
  settings: { variants?: ReadonlyArray<{ name: string }> | undefined };
  cells: ReadonlyArray<{ variant?: string | undefined }>;
}

export function pickVariants(results: VariantRun, asked: { base?: string; head?: string }): [string, string] {
  const names = variantNames(results);
  if (names.length < 2) {
    throw new UserError(
      `${results.runId}: this run holds ${names.length === 0 ? "no variants" : `one variant (${names.join("")})`}; compare two runs with 'proxybench compare BASE HEAD', or run with --variant base=DIR --variant head=DIR`,
    );
  }
  const pick = (flag: string, name: string | undefined, preferred: string, fallback: string) => {
    if (name !== undefined && !names.includes(name)) {
      throw new UserError(`${flag}: no variant '${name}' in this run (its variants: ${names.join(", ")})`);
    }
    return name ?? (names.includes(preferred) ? preferred : fallback);
  };
  const base = pick("--base", asked.base, "base", names[0]!);
  const head = pick("--head", asked.head, "head", names.find((n) => n !== base) ?? names[1]!);
  if (base === head) throw new UserError(`--base and --head name the same variant '${base}'`);
  return [base, head];
}

export function variantNames(results: VariantRun): string[] {
  const recorded = results.settings.variants?.map((v) => v.name) ?? [];
  const seen = results.cells.map((c) => c.variant).filter((v): v is string => v !== undefined);
  return [...new Set([...recorded, ...seen])];
}

/** Pairs of one metric by round; rounds measured on one side only are left out. */
function pairsByRound(base: Cell, head: Cell, metric: CompareMetric): Array<[number, number]> {
  const headByRound = new Map(head.repetitions.map((r) => [r.round ?? r.index, r]));
  const pairs: Array<[number, number]> = [];
  for (const b of base.repetitions) {
    const h = headByRound.get(b.round ?? b.index);
    if (h !== undefined) pairs.push([metricValue(b, metric), metricValue(h, metric)]);
  }
  return pairs;
}

/** One run holding variants: repetitions paired by round. */
export function compareVariants(
  results: Results,
  options: CompareOptions & { base?: string; head?: string } = {},
): Comparison {
  const [baseName, headName] = pickVariants(results, options);
  const of = (name: string) => results.cells.filter((c) => c.variant === name);
  const matched = matchCells(of(baseName), of(headName));
  const tests = matched.pairs.length * COMPARE_METRICS.length;
  const level = familyLevel(tests, options);
  const rounds = new Set<number>();
  const cells: CellComparison[] = matched.pairs.map(({ base, head }) => {
    const metrics = COMPARE_METRICS.map((spec) =>
      comparePairedMetric(pairsByRound(base, head, spec.metric), spec, level),
    );
    rounds.add(metrics[0]?.n ?? 0);
    const differs = scenarioDifference(base, head);
    return { ...where(head), metrics, ...(differs ? { scenarioDiffers: differs } : {}) };
  });
  const n = Math.min(...rounds);
  const notes: string[] = [];
  const needed = pairsNeededFor(1 - level.confidence);
  if (cells.length > 0 && n < needed) {
    notes.push(
      `With ${n} rounds no interval at ${formatConfidence(level.confidence)} exists (${tests} tests at alpha ${formatAlpha(level.alpha)}): no regression or improvement can be shown. Run ${needed} or more rounds (--repetitions ${needed}).`,
    );
  }
  for (const c of cells) if (c.scenarioDiffers) notes.push(`${c.id}: ${c.scenarioDiffers}`);
  return {
    mode: "paired",
    label: pairedLabel(rounds),
    thresholdPct: level.thresholdPct,
    alpha: level.alpha,
    confidence: level.confidence,
    tests,
    base: runInfo(results, baseName),
    head: runInfo(results, headName),
    cells,
    notCompared: matched.notCompared,
    counts: countVerdicts(cells),
    notes,
  };
}

function pairedLabel(rounds: ReadonlySet<number>): string {
  if (rounds.size === 0) return "paired by round (no cell compared)";
  const low = Math.min(...rounds);
  const high = Math.max(...rounds);
  return `paired over ${low === high ? low : `${low}-${high}`} rounds`;
}

/** Says how the variants' scenario settings differ, when they do. */
function scenarioDifference(base: Cell, head: Cell): string | undefined {
  const b = base.upstream;
  const h = head.upstream;
  if (JSON.stringify(b ?? {}) === JSON.stringify(h ?? {})) return undefined;
  return `the variants ran different scenario settings (upstream ${JSON.stringify(b ?? {})} in ${base.variant ?? "base"}, ${JSON.stringify(h ?? {})} in ${head.variant ?? "head"}): the change includes that difference.`;
}

export function formatConfidence(confidence: number): string {
  const percent = confidence * 100;
  return `${Number.isInteger(percent) ? percent : percent.toFixed(2).replace(/0+$/, "")}%`;
}

/** A false-alarm rate in a sentence: 0.05, or 0.0083 for 0.05 shared by six. */
function formatAlpha(alpha: number): string {
  return String(Number(alpha.toPrecision(2)));
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
