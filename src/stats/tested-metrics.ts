import { holdsSteal, stealOf, type StealRule } from "./steal.js";

/**
 * The metrics a comparison of two cells tests, and their values paired by round: shared by
 * `proxybench compare` (src/report/compare.ts) and the runner's stopping rule, so both test the
 * same family; a round whose steal is above the limit is left out of the metrics that hold it
 * (./steal.ts). Pure: it reads the few fields it needs of a results.json's cells.
 */

/** Smallest |% change| that counts as a change. */
export const DEFAULT_THRESHOLD_PCT = 5;
/** False-alarm rate of a whole comparison. */
export const DEFAULT_ALPHA = 0.05;
/** --target: the change a run's rounds aim to find at 80% power (--repetitions auto). */
export const DEFAULT_TARGET_PCT = 10;
/** --budget of a variant run that names no repetitions, as bench.yml's (minutes). */
export const DEFAULT_BUDGET_MINUTES = 15;

export type CompareMetric = "rps" | "mean" | "p50" | "p99" | "cpuPerRequest" | "peakMemory";

export const COMPARE_METRICS: ReadonlyArray<{
  metric: CompareMetric;
  label: string;
  biggerIsBetter: boolean;
}> = [
  { metric: "rps", label: "Requests/sec", biggerIsBetter: true },
  { metric: "mean", label: "Mean latency (ms)", biggerIsBetter: false },
  { metric: "p50", label: "p50 latency (ms)", biggerIsBetter: false },
  { metric: "p99", label: "p99 latency (ms)", biggerIsBetter: false },
  { metric: "cpuPerRequest", label: "Proxy CPU/request (µs)", biggerIsBetter: false },
  { metric: "peakMemory", label: "Proxy peak memory (MiB)", biggerIsBetter: false },
];

export type MetricSpec = (typeof COMPARE_METRICS)[number];

/**
 * What a new run tests by default: the proxy's CPU time per request, the quietest wall-clock
 * signal of the proxy's own work (per-round spread about 6% here, against 18-45% for p50 and
 * 65-110% for p99), and p99 latency beside it; the others are shown with their estimate and
 * interval, and tested when asked (--test-metrics). Fewer tests leave each more of alpha.
 */
export const PRIMARY_METRICS: readonly CompareMetric[] = ["cpuPerRequest", "p99"];
/** The metric --target sizes the rounds for: a block may stop once it is decided or precise enough. */
export const ROUNDS_METRIC: CompareMetric = "cpuPerRequest";
/** What runs recorded before the tested set was a setting tested: every metric. */
export const ALL_METRICS: readonly CompareMetric[] = COMPARE_METRICS.map((s) => s.metric);

/** The metrics a run's comparison tests: as recorded, else (older runs) every metric. */
export function testedSet(settings: {
  testedMetrics?: readonly CompareMetric[] | undefined;
}): readonly CompareMetric[] {
  return settings.testedMetrics ?? ALL_METRICS;
}

/** What of a repetition a comparison reads (a results.json's repetition). */
interface MeasuredRepetition {
  index: number;
  round?: number | undefined;
  /** `noisy`: still noisy after its tries; its round is left out of every paired test. */
  status?: string | undefined;
  rps: number;
  latencyMs: Record<"mean" | "p50" | "p99", number>;
  noise?: { steal: number } | undefined;
  proxyCost?:
    | {
        cpuPerRequestUs?: number | undefined;
        peakMemoryMiB?: number | undefined;
        peakSince?: "repetition" | "process" | "start" | undefined;
      }
    | undefined;
}

/** What of a cell a comparison reads (a results.json's cell). */
export interface MeasuredCell {
  load: { model: string };
  repetitions: readonly MeasuredRepetition[];
}

/** A repetition's value of a metric; NaN for the proxy's cost where it was not measured. */
export function metricValue(r: MeasuredRepetition, metric: CompareMetric): number {
  if (metric === "cpuPerRequest") return r.proxyCost?.cpuPerRequestUs ?? NaN;
  if (metric === "peakMemory") return r.proxyCost?.peakMemoryMiB ?? NaN;
  return metric === "rps" ? r.rps : r.latencyMs[metric];
}

/** Whether every repetition of these cells has the metric (no proxy cost for `direct` or old files). */
export function measuredIn(spec: MetricSpec, cells: readonly MeasuredCell[]): boolean {
  return cells.every((c) => c.repetitions.every((r) => Number.isFinite(metricValue(r, spec.metric))));
}

/** Whether the load fixes this metric (requests/sec under a fixed arrival rate): then it is shown, not tested. */
export function fixedByLoad(spec: MetricSpec, load: { model: string }): boolean {
  return spec.metric === "rps" && load.model === "constant-arrival-rate";
}

/**
 * Whether a metric is a running maximum in these cells: a peak memory read since the proxy's
 * start while one process served every round (a container's, whose peak is not reset). Once
 * both sides level off every round has the same sign, so it is shown, never tested.
 */
export function runningMaximum(spec: MetricSpec, cells: readonly MeasuredCell[]): boolean {
  return (
    spec.metric === "peakMemory" &&
    cells.some((c) => c.repetitions.some((r) => r.proxyCost?.peakSince === "start"))
  );
}

/** The metrics compare tests for a cell under this load, of the tested set (the runner sizes its rounds on their count). */
export function testedSpecs(
  load: { model: string },
  tested: readonly CompareMetric[],
  ...cells: MeasuredCell[]
): MetricSpec[] {
  return COMPARE_METRICS.filter(
    (spec) =>
      tested.includes(spec.metric) &&
      !fixedByLoad(spec, load) &&
      measuredIn(spec, cells) &&
      !runningMaximum(spec, cells),
  );
}

export interface RoundPair {
  round: number;
  base: number;
  head: number;
}

/** A round left out of a metric's test: the larger steal of its two repetitions, in cores. */
interface StolenRound {
  round: number;
  steal: number;
}

/**
 * Pairs of one figure by round, in round order; rounds measured on one side only are left out,
 * and so are rounds where either side's figure is missing or not finite, rounds with steal above
 * `stealLimit` (set when the figure holds stolen time), and, with `noisyOut`, rounds where either
 * side's repetition stayed noisy after its tries (other processes' CPU on the benchmark's cores:
 * every figure holds it).
 */
export function pairsByRound<R extends MeasuredRepetition>(
  base: { repetitions: readonly R[] },
  head: { repetitions: readonly R[] },
  value: (r: R) => number | undefined,
  { stealLimit, noisyOut }: { stealLimit?: number | undefined; noisyOut: boolean },
): Pick<PairedMember, "pairs" | "stolen" | "noisy" | "usable"> {
  const headByRound = new Map(head.repetitions.map((r) => [r.round ?? r.index, r]));
  const pairs: RoundPair[] = [];
  const stolen: StolenRound[] = [];
  const noisy: number[] = [];
  for (const b of base.repetitions) {
    const round = b.round ?? b.index;
    const h = headByRound.get(round);
    if (h === undefined) continue;
    const most = Math.max(stealOf(b), stealOf(h));
    const [bv, hv] = [value(b), value(h)];
    if (noisyOut && (b.status === "noisy" || h.status === "noisy")) noisy.push(round);
    else if (stealLimit !== undefined && most > stealLimit) stolen.push({ round, steal: most });
    else if (bv !== undefined && hv !== undefined && Number.isFinite(bv) && Number.isFinite(hv))
      pairs.push({ round, base: bv, head: hv });
  }
  return {
    pairs: pairs.sort((x, y) => x.round - y.round),
    stolen,
    noisy: noisy.sort((x, y) => x - y),
    usable: pairs.length > 0 && pairs.every((p) => p.base > 0 && p.head > 0),
  };
}

/** One tested metric of one cell, paired by round. */
export interface PairedMember {
  /** Index of its cell among the compared ones. */
  cell: number;
  spec: MetricSpec;
  pairs: RoundPair[];
  /** Rounds left out for steal above the limit (the metric holds stolen time). */
  stolen: StolenRound[];
  /** Rounds left out because a side's repetition stayed noisy after its tries. */
  noisy: number[];
  /** Rounds the cell measured (its last round + 1). */
  rounds: number;
  /** Every value positive, so every pair has a log ratio. */
  usable: boolean;
}

/** Metrics of a base cell and its head twin (the `cell`-th compared), paired by round. */
export function pairedMembers(
  base: MeasuredCell,
  head: MeasuredCell,
  cell: number,
  specs: readonly MetricSpec[],
  steal?: StealRule,
): PairedMember[] {
  return specs.map((spec) => {
    const holds = steal !== undefined && holdsSteal(spec.metric, steal.accounting);
    const paired = pairsByRound(base, head, (r) => metricValue(r, spec.metric), {
      stealLimit: holds ? steal.limit : undefined,
      noisyOut: true,
    });
    const { pairs, stolen, noisy } = paired;
    const last = Math.max(-1, ...pairs.map((p) => p.round), ...stolen.map((s) => s.round), ...noisy);
    return { cell, spec, ...paired, rounds: last + 1 };
  });
}

/**
 * The tested metrics of a base cell and its head twin, paired by round: how compare (paired mode)
 * and the runner's stopping rule both pair them.
 */
export function pairedTwins(
  base: MeasuredCell,
  head: MeasuredCell,
  cell: number,
  tested: readonly CompareMetric[],
  steal?: StealRule,
): PairedMember[] {
  return pairedMembers(base, head, cell, testedSpecs(head.load, tested, base, head), steal);
}

/** Per pair, log(head / base). */
export function logRatios(pairs: readonly RoundPair[]): number[] {
  return pairs.map((p) => Math.log(p.head / p.base));
}
