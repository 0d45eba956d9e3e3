import { median } from "simple-statistics";
import { cellKey, type Cell, type Results } from "../results/schema.js";
import { historyP, runsNeededFor } from "../stats/history.js";
import { holm } from "../stats/holm.js";
import { judgePaired } from "../stats/paired.js";
import {
  everyRound,
  judgeLooks,
  type Judged,
  type Look,
  type LookPlan,
  type SequentialPlan,
} from "../stats/sequential.js";
import {
  describeStealRange,
  holdsSteal,
  stealOf,
  stealRuleOf,
  stealToName,
  type StealRule,
} from "../stats/steal.js";
import { signedPct, type Verdict } from "../stats/verdict.js";
import {
  COMPARE_METRICS,
  DEFAULT_ALPHA,
  DEFAULT_THRESHOLD_PCT,
  fixedByLoad,
  logRatios,
  measuredIn,
  metricValue,
  pairedMembers,
  pairedTwins,
  runningMaximum,
  testedSet,
  testedSpecs,
  type CompareMetric,
  type MetricSpec,
  type PairedMember,
} from "../stats/tested-metrics.js";
import { pairsNeededFor } from "../stats/wilcoxon.js";
import { withoutUndefined } from "../util/objects.js";
import type { RunHistory } from "./compare-history.js";
import { displayReasons } from "./model.js";
import { pickVariants } from "../results/variants.js";
import { formatAlpha, formatConfidence, plural } from "../render/format.js";
import { percentChange } from "./tables.js";

/**
 * Candidate (head) against baseline (base), cell by cell and metric by metric, in one of two
 * modes:
 * - paired (one run holding variants, `compareVariants`): the repetitions of base and head of
 *   one round form a pair; per pair the log ratio head/base; an exact Wilcoxon signed-rank test
 *   and the Hodges-Lehmann estimate of the ratio with its interval;
 * - unpaired (two runs made at different times, `compareResults`): no verdict unless the spread
 *   between runs is known from past runs (a gh-pages history), labelled as such everywhere.
 * The tested family is every tested metric of every compared cell (requests/sec under a fixed
 * arrival rate is fixed by the load: shown, not tested); Holm's step-down keeps the chance of
 * any false regressed/improved in the comparison at alpha, at every look of a run with
 * `--repetitions auto` (src/stats/sequential.ts); each interval is at the level Holm tested its
 * metric at, and the verdict follows src/stats/verdict.ts.
 */

export type { Verdict } from "../stats/verdict.js";

export interface CompareOptions {
  /** Smallest |% change| that counts as a change (default 5). */
  thresholdPct?: number;
  /** False-alarm rate of the whole comparison (default 0.05). */
  alpha?: number;
  /** Unpaired only: past runs of the same cells (a gh-pages data.js), the spread between runs. */
  history?: RunHistory;
  /** The metrics tested (--test-metrics); absent: as the run recorded (src/stats/tested-metrics.ts). */
  testedMetrics?: readonly CompareMetric[];
}

/** A metric's medians on both sides, and their % change (absent when the base median is 0). */
type MetricShown = ReturnType<typeof shownMedians>;

/**
 * A metric shown, not tested: one the load fixes (requests/sec under a fixed arrival rate), or
 * one outside the tested set (--test-metrics). A paired one outside the set has its estimate and
 * interval too, each at the family's alpha for that metric alone (no family-wise control: a
 * guide to the size, never a verdict), and the change it would find at 80% power.
 */
export interface ShownMetric
  extends MetricShown, Pick<MetricComparison, "hlChangePct" | "ci" | "ciConfidence" | "detectablePct"> {
  why: string;
}

export interface MetricComparison extends MetricShown {
  /** Interval of the % change at 1 - level (paired). */
  ci?: [number, number];
  /** Confidence the interval actually reaches (the test is discrete: at least 1 - level). */
  ciConfidence?: number;
  /** Hodges-Lehmann estimate of the % change: what the verdict weighs against the threshold. */
  hlChangePct?: number;
  /**
   * Unadjusted two-sided p-value: Wilcoxon signed-rank (paired), the head run's rank among past
   * runs (unpaired with a history); absent when no test could be made.
   */
  p?: number;
  pMethod?: "exact" | "normal" | "history";
  /** The level Holm tested this metric at: its interval is at 1 - level. */
  level?: number;
  /** Whether Holm rejected "no change" at that level. */
  rejected?: boolean;
  /** 1-based look of the run's plan the figures come from (--repetitions auto). */
  look?: number;
  /** Pairs (paired) or the smaller sample (unpaired). */
  n: number;
  verdict: Verdict;
  /** Why the verdict is what it is, in a few words. */
  why: string;
  /** For an inconclusive metric: about how many more rounds or repetitions would decide it. */
  more?: number;
  /** For an inconclusive paired metric: the smallest |% change| these rounds could have detected. */
  detectablePct?: number;
  /** Paired: rounds left out of this test for steal above the noise limit (the figure holds it). */
  stolenRounds?: number;
  /** Paired: rounds left out of this test because a side's repetition stayed noisy after its tries. */
  noisyRounds?: number;
}

/** Which cell: its id and what the id is made of. */
type CellIdentity = ReturnType<typeof where>;

export interface CellComparison extends CellIdentity {
  /** The tested metrics. */
  metrics: MetricComparison[];
  /** Metrics shown but not tested (fixed by the load). */
  shown: ShownMetric[];
  /** Set when base and head ran different scenario settings (a variant's own scenario). */
  scenarioDiffers?: string;
}

type NotCompared = CellIdentity & { reason: string };

export type RunInfo = ReturnType<typeof runInfo>;

export interface Comparison extends ReturnType<typeof familyFigures>, ReturnType<typeof outcome> {
  mode: "paired" | "unpaired";
  /** "paired over 10 rounds" or "unpaired: runs at different times": shown in every output. */
  label: string;
  /** Paired: the looks (one for a run with fixed repetitions); unpaired: none. */
  looks: ReturnType<typeof looksTaken>;
  /** Paired: the run planned its rounds (--repetitions auto) and the looks are its plan's. */
  planned: boolean;
  base: RunInfo;
  head: RunInfo;
}

function summary(xs: number[]) {
  return { median: xs.length ? median(xs) : 0, n: xs.length, values: xs };
}

/** A metric's medians on both sides, `rest`, then the change of the medians when it has one. */
function withMedians<T extends object>(spec: MetricSpec, base: number[], head: number[], rest: T) {
  const b = summary(base);
  const h = summary(head);
  const changePct = percentChange(h.median, b.median);
  return { ...spec, base: b, head: h, ...rest, ...(changePct !== undefined ? { changePct } : {}) };
}

/** A metric's medians over every repetition of both cells, to be shown. */
function shownMedians(spec: MetricSpec, base: Cell, head: Cell) {
  const values = (cell: Cell) => cell.repetitions.map((r) => metricValue(r, spec.metric));
  return withMedians(spec, values(base), values(head), {});
}

/** The metrics shown, not tested; `paired`: the family's level and the run's steal rule, for each one's interval alone. */
function shownOf(
  base: Cell,
  head: Cell,
  tested: readonly CompareMetric[],
  paired?: FamilyLevel & { steal: StealRule },
): ShownMetric[] {
  const { model, rate } = head.load;
  const fixed = `fixed by the load (${model}${rate !== undefined ? ` at ${rate}/s` : ""}): shown, not tested`;
  const untested = `not tested (--test-metrics ${[...tested, "..."].join(",")} tests it too)`;
  const runningMax =
    "a running maximum (the container's peak since its start, one process for every round): shown, never tested";
  const cells = [base, head];
  const testedHere = testedSpecs(head.load, tested, ...cells);
  return COMPARE_METRICS.filter(
    (spec) => fixedByLoad(spec, head.load) || (measuredIn(spec, cells) && !testedHere.includes(spec)),
  ).map((spec) => {
    const shown = shownMedians(spec, base, head);
    if (fixedByLoad(spec, head.load)) return { ...shown, why: fixed };
    if (runningMaximum(spec, cells)) return { ...shown, why: runningMax };
    return { ...shown, why: untested, ...(paired ? aloneFigures(base, head, spec, paired) : {}) };
  });
}

/** A paired metric's estimate, interval and detectable change at the family's alpha, alone. */
function aloneFigures(
  base: Cell,
  head: Cell,
  spec: MetricSpec,
  level: FamilyLevel & { steal: StealRule },
): Partial<ShownMetric> {
  const [member] = pairedMembers(base, head, 0, [spec], level.steal);
  if (!member?.usable) return {};
  const j = judgePaired(logRatios(member.pairs), {
    level: level.alpha,
    biggerIsBetter: spec.biggerIsBetter,
    thresholdPct: level.thresholdPct,
  });
  return withoutUndefined({
    hlChangePct: j.estimatePct,
    ci: j.ci,
    ciConfidence: j.confidence,
    detectablePct: j.detectablePct,
  });
}

function runInfo(results: Results, variant?: string) {
  const { commit, branch, message } = results.environment.git;
  return {
    runId: results.runId,
    repetitions: results.settings.repetitions,
    ...withoutUndefined({ variant, commit, branch, message: message?.split("\n")[0] }),
  };
}

function describeStatus(cell: Cell): string {
  return cell.reasons.length ? `${cell.status} (${displayReasons(cell.reasons).join("; ")})` : cell.status;
}

/** `runner`: the machine that measured both sides (results merged from shards). */
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

function machineNotes({ environment: b }: Results, { environment: h }: Results): string[] {
  if (b.cpuModel === h.cpuModel && b.cores === h.cores) return [];
  return [
    `Base and head ran on different machines (${b.cpuModel}, ${b.cores} cores against ${h.cpuModel}, ${h.cores} cores): differences may come from the machine.`,
  ];
}

/**
 * Whether a side can be compared: `ok`, or, paired, `noisy` with some repetition that was not
 * (its noisy rounds are left out of every test, src/stats/tested-metrics.ts).
 */
function comparable(cell: Cell, paired: boolean): boolean {
  if (cell.status === "ok") return true;
  return paired && cell.status === "noisy" && cell.repetitions.some((r) => r.status === "ok");
}

/** Why a pair of cells cannot be compared; undefined when it can. */
function cannotCompare(base: Cell, head: Cell, paired: boolean): string | undefined {
  const problems = Object.entries({ base, head }).flatMap(([side, cell]) =>
    comparable(cell, paired) ? [] : [`${side} is ${describeStatus(cell)}`],
  );
  if (problems.length > 0) return problems.join("; ");
  if (base.repetitions.length === 0 || head.repetitions.length === 0) return "no measured repetitions";
  return undefined;
}

interface Matched {
  pairs: Array<{ base: Cell; head: Cell }>;
  notCompared: NotCompared[];
}

/** Joins head cells to base cells on their key (the id without the variant); `paired`: by round. */
function matchCells(baseCells: readonly Cell[], headCells: readonly Cell[], paired: boolean): Matched {
  const byKey = new Map(baseCells.map((c) => [cellKey(c), c]));
  const headKeys = new Set(headCells.map((c) => cellKey(c)));
  const out: Matched = { pairs: [], notCompared: [] };
  for (const head of headCells) {
    const base = byKey.get(cellKey(head));
    const reason = base === undefined ? "only in head (new cell)" : cannotCompare(base, head, paired);
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

type FamilyLevel = ReturnType<typeof familyLevel>;

function familyLevel({ alpha, thresholdPct }: CompareOptions) {
  return { alpha: alpha ?? DEFAULT_ALPHA, thresholdPct: thresholdPct ?? DEFAULT_THRESHOLD_PCT };
}

/**
 * The family's threshold and alpha, its tests (tested metrics over all compared cells: Holm's m),
 * and Bonferroni's confidence, 1 - alpha / tests: the widest any interval is (Holm's first step).
 */
function familyFigures({ thresholdPct, alpha }: FamilyLevel, tests: number) {
  return { thresholdPct, alpha, confidence: 1 - alpha / Math.max(1, tests), tests };
}

/**
 * How a comparison ends, in either mode: the cells compared and not, their verdicts counted, and
 * its notes (warnings that apply to the whole comparison: too few repetitions, different machines).
 */
function outcome(cells: CellComparison[], matched: Matched, notes: string[]) {
  const counts: Record<Verdict, number> = { regressed: 0, improved: 0, unchanged: 0, inconclusive: 0 };
  for (const c of cells) for (const m of c.metrics) counts[m.verdict] += 1;
  return { cells, notCompared: matched.notCompared, counts, notes };
}

function loadNote(base: Cell, head: Cell): string | undefined {
  if (JSON.stringify(base.load) === JSON.stringify(head.load)) return undefined;
  return `${cellKey(head)}: the load differs between base (${JSON.stringify(base.load)}) and head (${JSON.stringify(head.load)}): the change may come from the load, not the proxy.`;
}

/** One tested metric of two runs: the values of each, and the history's past runs when there are some. */
type UnpairedMember = ReturnType<typeof unpairedMembers>[number];

/**
 * A run's values of a metric, the repetitions with steal above the limit left out where it holds
 * steal; `every`: each repetition had it (all its values are kept, to be shown, not tested).
 */
function unstolenValues(cell: Cell, spec: MetricSpec, rule: StealRule) {
  const counted = holdsSteal(spec.metric, rule.accounting)
    ? cell.repetitions.filter((r) => stealOf(r) <= rule.limit)
    : cell.repetitions;
  const stolen = { count: cell.repetitions.length - counted.length, limit: rule.limit };
  const every = counted.length === 0 && stolen.count > 0;
  const values = (every ? cell.repetitions : counted).map((r) => metricValue(r, spec.metric));
  return { values, stolen, every };
}

function unpairedMembers(
  b: Cell,
  h: Cell,
  runs: { base: Results; head: Results },
  tested: readonly CompareMetric[],
  history?: RunHistory,
) {
  const own = new Set([runs.base.environment.git.commit, runs.head.environment.git.commit]);
  return testedSpecs(h.load, tested, b, h).map((spec) => {
    const base = unstolenValues(b, spec, stealRuleOf(runs.base));
    const head = unstolenValues(h, spec, stealRuleOf(runs.head));
    // A run whose every repetition had that steal: its median is shown, not tested.
    const everyStolen = head.every ? ("head" as const) : base.every ? ("base" as const) : undefined;
    // Past runs beside the base run, when a history holds this cell and metric.
    const past = history?.medians(where(h), spec.metric).filter((m) => !own.has(m.commit));
    return {
      spec,
      base: base.values,
      head: head.values,
      /** Repetitions left out of each run's median for steal above its run's limit (cores). */
      stolen: { base: base.stolen, head: head.stolen },
      ...(everyStolen !== undefined ? { everyStolen } : {}),
      ...(everyStolen === undefined && past?.length ? { past: past.map((m) => m.value) } : {}),
    };
  });
}

/** `; 4 head repetitions left out of its median: steal above 0.05 core`, or nothing. */
function unpairedStealWords({ everyStolen, stolen }: UnpairedMember): string {
  if (everyStolen !== undefined)
    return `; not tested: steal above ${stolen[everyStolen].limit} core in every repetition of the ${everyStolen} run, and this figure holds the time the hypervisor stole`;
  const sides = (["base", "head"] as const).filter((s) => stolen[s].count > 0);
  const words = (s: "base" | "head") =>
    `; ${plural(stolen[s].count, `${s} repetition`)} left out of its median: steal above ${stolen[s].limit} core`;
  return sides.map(words).join("");
}

/** The verdict of one metric of two runs: none without past runs; with them, Holm's decision. */
function unpairedMetric(
  member: UnpairedMember,
  test: { p?: number; level?: number; rejected?: boolean },
  level: FamilyLevel,
): MetricComparison {
  const { base, head, spec } = member;
  const figures = { n: Math.min(base.length, head.length), verdict: "inconclusive" as const, why: "" };
  const out: MetricComparison = withMedians(spec, base, head, figures);
  const changePct = out.changePct;
  const observed = changePct === undefined ? "no % change" : `observed change ${signedPct(changePct)}`;
  const steal = unpairedStealWords(member);
  if (member.everyStolen !== undefined) return { ...out, why: `${observed}${steal}` };
  if (test.p === undefined || member.past === undefined) {
    out.why = `${observed}; runs at different times: the spread between runs is unknown (no past runs of this cell given with --history), so no change can be told from drift${steal}`;
    return out;
  }
  Object.assign(out, { p: test.p, pMethod: "history", level: test.level, rejected: test.rejected });
  const runs = `${member.past.length + 1} past runs`;
  if (!test.rejected || changePct === undefined) {
    out.why = `${observed}; within the spread of ${runs} (p ${test.p.toPrecision(2)} above its level ${test.level?.toPrecision(2)})`;
  } else if (Math.abs(changePct) < level.thresholdPct) {
    out.why = `${observed}; outside the spread of ${runs} but below ${level.thresholdPct}%`;
  } else {
    const better = spec.biggerIsBetter ? changePct > 0 : changePct < 0;
    out.verdict = better ? "improved" : "regressed";
    out.why = `${observed}: outside the spread of ${runs} and reaches ${level.thresholdPct}%`;
  }
  out.why += steal;
  return out;
}

/**
 * Two runs made at different times: drift between them counts as change, so no verdict unless
 * the spread between runs is known (options.history: past runs of the same cells); then the
 * head run's median against the past runs' and the base's (src/stats/history.ts), Holm over
 * the family. Labelled unpaired.
 */
export function compareResults(base: Results, head: Results, options: CompareOptions = {}): Comparison {
  const matched = matchCells(base.cells, head.cells, false);
  const level = familyLevel(options);
  const tested = options.testedMetrics ?? testedSet(head.settings);
  const perCell = matched.pairs.map((p) =>
    unpairedMembers(p.base, p.head, { base, head }, tested, options.history),
  );
  const members = perCell.flat();
  // The family: the metrics with a history only (one without has no test, so no share of alpha).
  const withPast = members.filter((m) => m.past !== undefined);
  const ps = withPast.map((m) => historyP(median(m.head), [...m.past!, median(m.base)]));
  const { rejected, levels } = holm(ps, level.alpha);
  const tests = new Map(
    withPast.map((m, k) => [m, { p: ps[k]!, level: levels[k]!, rejected: rejected[k]! }]),
  );
  const cells: CellComparison[] = matched.pairs.map(({ base: b, head: h }, c) => ({
    ...where(h),
    metrics: perCell[c]!.map((m) => unpairedMetric(m, tests.get(m) ?? {}, level)),
    shown: shownOf(b, h, tested),
  }));
  return {
    mode: "unpaired",
    label: "unpaired: runs at different times",
    ...familyFigures(level, withPast.length),
    looks: [],
    planned: false,
    base: runInfo(base),
    head: runInfo(head),
    ...outcome(cells, matched, [
      ...unpairedNotes(base, head, matched, members, level, options.history),
      ...stealNotes(matched.pairs, stealRuleOf(head)),
    ]),
  };
}

function unpairedNotes(
  base: Results,
  head: Results,
  matched: Matched,
  members: readonly UnpairedMember[],
  level: FamilyLevel,
  history: RunHistory | undefined,
): string[] {
  const notes = [
    history === undefined
      ? `Unpaired: base and head ran at different times, so drift between the runs (other work on the machine, frequency, caches) cannot be told from a change: no regression or improvement is shown. Run both in one run with --variant for a paired comparison, or give past runs of the same cells with --history (a gh-pages data.js).`
      : `Unpaired: base and head ran at different times; each metric's head median is judged against the spread of the past runs in ${history.source} and the base run.`,
    ...machineNotes(base, head),
    ...matched.pairs
      .map(({ base: b, head: h }) => loadNote(b, h))
      .filter((n): n is string => n !== undefined),
  ];
  // The family holds the metrics with past runs only: m is their count.
  const known = members.filter((m) => m.past !== undefined);
  if (history !== undefined && members.length > 0) {
    const fewest = known.length === 0 ? 0 : Math.min(...known.map((m) => (m.past?.length ?? 0) + 1));
    const needed = runsNeededFor(level.alpha / Math.max(1, known.length));
    if (fewest < needed) {
      notes.push(
        `${known.length} of ${members.length} tested metrics have past runs in the history (the fewest: ${fewest}); ${needed} past runs of a metric are needed before it can show a change (${Math.max(1, known.length)} tests at alpha ${formatAlpha(level.alpha)}).`,
      );
    }
  }
  return notes;
}

function pairedMetric(
  m: PairedMember,
  judged: Judged | undefined,
  { planned, steal }: { planned: boolean; steal: StealRule },
): MetricComparison {
  const pairs = judged?.pairs ?? m.pairs;
  const base = pairs.map((p) => p.base);
  const head = pairs.map((p) => p.head);
  const figures = { n: pairs.length, verdict: "inconclusive" as const, why: "" };
  const out: MetricComparison = withMedians(m.spec, base, head, figures);
  if (judged === undefined) {
    const why = m.usable
      ? `${m.rounds} rounds: fewer than the plan's first look`
      : "no % change: a value is zero";
    return { ...out, why };
  }
  const j = judged.judgement;
  Object.assign(out, {
    p: j.p,
    pMethod: j.method,
    level: judged.level,
    rejected: judged.rejected,
    verdict: j.verdict,
    why: j.why,
    ...withoutUndefined({ hlChangePct: j.estimatePct, ci: j.ci, ciConfidence: j.confidence }),
  });
  if (m.stolen.length > 0) {
    out.why += `; ${stolenWords(m, steal.limit)}`;
    out.stolenRounds = m.stolen.length;
  }
  if (m.noisy.length > 0) {
    out.why += `; ${m.noisy.length} of ${plural(m.rounds, "round")} left out: noisy (other processes' CPU on the benchmark's cores, still after its tries)`;
    out.noisyRounds = m.noisy.length;
  }
  if (planned) out.look = judged.look + 1;
  if (j.more !== undefined) out.more = j.more;
  if (j.verdict === "inconclusive" && j.detectablePct !== undefined) out.detectablePct = j.detectablePct;
  return out;
}

/** `2 of 10 rounds left out: steal above 0.05 core (0.21 core (0.13-0.54))`. */
function stolenWords(m: PairedMember, limit: number): string {
  const rounds = m.pairs.length + m.stolen.length;
  return `${m.stolen.length} of ${plural(rounds, "round")} left out: steal above ${limit} core (${describeStealRange(m.stolen.map((s) => s.steal))})`;
}

/** A tested metric whose every round had steal above the limit: shown with its medians, not tested. */
function stolenShown(m: PairedMember, base: Cell, head: Cell, steal: StealRule): ShownMetric {
  return {
    ...shownMedians(m.spec, base, head),
    why: `not tested: steal above ${steal.limit} core on every round (${describeStealRange(m.stolen.map((s) => s.steal))}), and this figure holds the time the hypervisor stole`,
  };
}

/** The looks a comparison takes: the run's plan (scaled to this alpha), else one at every round. */
function looksOf(results: Results, alpha: number): LookPlan {
  const plan: SequentialPlan | undefined = results.settings.sequential;
  if (plan === undefined) return everyRound(alpha);
  return {
    looks: plan.looks.map((l) => ({ rounds: l.rounds, alpha: l.alpha * (alpha / plan.alpha) })),
    planned: true,
  };
}

/** Each look of the run's plan as the comparison took it (`taken`: judgeLooks's). */
function looksTaken(
  plan: LookPlan,
  members: readonly PairedMember[],
  taken: ReturnType<typeof judgeLooks<PairedMember>>["taken"],
) {
  return plan.looks.map((l, k) => ({
    rounds: plan.planned ? l.rounds : Math.max(0, ...members.map((m) => m.rounds)),
    /** Alpha spent at this look. */
    alpha: l.alpha,
    /** Compared cells whose rounds reached it. */
    cells: new Set(taken[k]?.reached.map((m) => m.cell)).size,
    /** Metrics decided at this look. */
    decided: taken[k]?.decided ?? 0,
  }));
}

/** One run holding variants: repetitions paired by round. */
export function compareVariants(
  results: Results,
  options: CompareOptions & { base?: string; head?: string; from?: string } = {},
): Comparison {
  const [baseName, headName] = pickVariants(results, options);
  const of = (name: string) => results.cells.filter((c) => c.variant === name);
  const matched = matchCells(of(baseName), of(headName), true);
  const level = familyLevel(options);
  const tested = options.testedMetrics ?? testedSet(results.settings);
  const steal = stealRuleOf(results);
  const all = matched.pairs.flatMap(({ base, head }, c) => pairedTwins(base, head, c, tested, steal));
  // A metric with steal above the limit on every round has nothing to test: shown, outside the family.
  const everyRoundStolen = (m: PairedMember) => m.pairs.length === 0 && m.stolen.length > 0;
  const members = all.filter((m) => !everyRoundStolen(m));
  const plan = looksOf(results, level.alpha);
  const { judged, taken } = judgeLooks(members, plan, level.thresholdPct);
  const cells: CellComparison[] = matched.pairs.map(({ base, head }, c) => {
    const metrics = members.flatMap((m, i) =>
      m.cell === c ? [pairedMetric(m, judged[i], { planned: plan.planned, steal })] : [],
    );
    const stolen = all.filter((m) => m.cell === c && everyRoundStolen(m));
    return {
      ...where(head),
      metrics,
      shown: [
        ...shownOf(base, head, tested, { ...level, steal }),
        ...stolen.map((m) => stolenShown(m, base, head, steal)),
      ],
      ...withoutUndefined({ scenarioDiffers: scenarioDifference(base, head) }),
    };
  });
  const rounds = new Set(cells.flatMap((c) => c.metrics.map((m) => m.n)));
  return {
    mode: "paired",
    label: pairedLabel(rounds),
    ...familyFigures(level, members.length),
    looks: looksTaken(plan, members, taken),
    planned: plan.planned,
    base: runInfo(results, baseName),
    head: runInfo(results, headName),
    ...outcome(cells, matched, [
      ...pairedNotes(cells, members, plan.looks, level, results.settings.study),
      ...stealNotes(matched.pairs, steal),
      ...stolenRoundNotes(all, steal),
      ...noisyRoundNotes(all, cells),
    ]),
  };
}

/** The rounds left out of every test of a cell: a side's repetition stayed noisy after its tries. */
function noisyRoundNotes(members: readonly PairedMember[], cells: readonly CellComparison[]): string[] {
  const hit = cells.flatMap((cell, c) => {
    const m = members.find((x) => x.cell === c && x.noisy.length > 0);
    return m ? [`${cell.id} (${m.noisy.length} of ${plural(m.rounds, "round")})`] : [];
  });
  if (hit.length === 0) return [];
  return [
    `Rounds where a side's repetition stayed noisy after its tries (other processes' CPU on the benchmark's cores) were left out of every test of their cell, its other rounds compared: ${hit.join(", ")}.`,
  ];
}

/** The steal of the compared cells' repetitions, named: what it is in the figures. Empty when none was above the limit. */
function stealNotes(pairs: Matched["pairs"], steal: StealRule): string[] {
  const cells = pairs.flatMap((p) => [p.base, p.head]);
  const named = stealToName(cells, steal);
  if (named === undefined) return [];
  return [
    `Steal: the hypervisor took ${named.range} of the pinned cores (median over ${plural(named.repetitions, "repetition")}); steal alone does not make a repetition noisy. ${named.cpu}; latency and requests/sec hold it.`,
  ];
}

/** Which tested metrics lost rounds to steal above the limit, and which were compared on every round. */
function stolenRoundNotes(members: readonly PairedMember[], steal: StealRule): string[] {
  const hit = members.filter((m) => m.stolen.length > 0);
  if (hit.length === 0) return [];
  const labels = (ms: readonly PairedMember[]) => [...new Set(ms.map((m) => m.spec.label))].join(", ");
  const untested = hit.filter((m) => m.pairs.length === 0);
  const whole = members.filter((m) => m.stolen.length === 0 && m.pairs.length > 0);
  const notTested =
    untested.length === 0 ? "" : `; ${untested.length} of them had no round left and are shown, not tested`;
  const clean =
    whole.length === 0 ? "No tested metric was free of steal." : `Compared on every round: ${labels(whole)}.`;
  return [
    `Rounds with steal above ${steal.limit} core (--noise-limit) were left out of the tests of the figures that hold it: ${labels(hit)} (${hit.length} of ${members.length} tested metrics${notTested}). ${clean}`,
  ];
}

function pairedNotes(
  cells: readonly CellComparison[],
  members: readonly PairedMember[],
  looks: readonly Look[],
  level: FamilyLevel,
  study: string | undefined,
): string[] {
  const notes: string[] = [];
  const last = looks[looks.length - 1]!;
  const needed = pairsNeededFor(last.alpha / Math.max(1, members.length));
  // A study's rounds are its own (`study -r N`); only a run sizes them (`run --repetitions auto`).
  const rerun =
    study === undefined
      ? `--repetitions ${needed}), or let --repetitions auto size them`
      : `proxybench study ${study} -r ${needed})`;
  const n = Math.min(...members.map((m) => m.pairs.length));
  if (members.length > 0 && n < needed) {
    notes.push(
      `With ${n} rounds no interval at ${formatConfidence(1 - last.alpha / members.length)} exists (${members.length} tests at alpha ${formatAlpha(level.alpha)}): no regression or improvement can be shown. Run ${needed} or more rounds (${rerun}.`,
    );
  }
  for (const c of cells) if (c.scenarioDiffers) notes.push(`${c.id}: ${c.scenarioDiffers}`);
  return notes;
}

function pairedLabel(rounds: ReadonlySet<number>): string {
  if (rounds.size === 0) return "paired by round (no cell compared)";
  const low = Math.min(...rounds);
  const high = Math.max(...rounds);
  return `paired over ${low === high ? low : `${low}-${high}`} rounds`;
}

/** Says how the variants' scenario settings differ, when they do. */
function scenarioDifference(base: Cell, head: Cell): string | undefined {
  const b = JSON.stringify(base.upstream ?? {});
  const h = JSON.stringify(head.upstream ?? {});
  if (b === h) return undefined;
  return `the variants ran different scenario settings (upstream ${b} in ${base.variant ?? "base"}, ${h} in ${head.variant ?? "head"}): the change includes that difference.`;
}

/** "2 regressions, 1 improvement, 9 unchanged, 1 inconclusive" (and cells not compared, if any). */
export function comparisonHeadline(comparison: Comparison): string {
  const c = comparison.counts;
  const parts = [
    plural(c.regressed, "regression"),
    plural(c.improved, "improvement"),
    `${c.unchanged} unchanged`,
    `${c.inconclusive} inconclusive`,
  ];
  if (comparison.notCompared.length > 0) parts.push(`${comparison.notCompared.length} not compared`);
  return parts.join(", ");
}
