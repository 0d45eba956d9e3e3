import { holm } from "./holm.js";
import { judgePaired, type PairedJudgement } from "./paired.js";
import { logRatios, type MetricSpec, type PairedMember, type RoundPair } from "./tested-metrics.js";
import { pairsNeededFor, wilcoxonSignedRank } from "./wilcoxon.js";

/**
 * Rounds that reach a verdict (`--repetitions auto`), pure.
 *
 * The plan: looks at round counts fixed before any measurement, the family's alpha split across
 * them (alpha_k, summing to at most alpha). At look k the family's m tests are tested with Holm
 * at alpha_k on the rounds so far; a metric decided at a look stays decided. Why the chance of
 * any false regressed/improved over all looks stays at most alpha, whatever the stopping rule:
 * at look k Holm rejects a true "no change" only when some true null's p is at most
 * alpha_k / m0 (m0 true nulls; Holm's first rejection of a true null comes at a step whose level
 * is at most that), which has chance at most alpha_k; a metric not measured at look k counts as
 * p = 1, and one rejected earlier as p = 0 (on the event that no earlier rejection was false,
 * it is a false null, so the step argument holds); the union over looks is at most
 * sum(alpha_k) <= alpha. Stopping early only leaves out looks, so any rule for stopping keeps
 * the bound: the runner stops a block when every metric is decided or the time budget is spent.
 */

export interface Look {
  /** Rounds measured when this look is taken. */
  rounds: number;
  /** Share of the family's false-alarm rate spent at this look. */
  alpha: number;
}

export interface SequentialPlan {
  /** The family's false-alarm rate (the looks' alphas sum to at most this). */
  alpha: number;
  /** Tested metrics in the family (m). */
  tests: number;
  looks: Look[];
}

export interface PlanRequest {
  alpha: number;
  tests: number;
  /** Most rounds the time budget holds; absent: one look, at the fewest rounds that give an interval. */
  maxRounds?: number;
  /** Most looks (default 3). */
  maxLooks?: number;
  /** Fewest rounds between two looks (default 2). */
  minGap?: number;
  /** Share of alpha the looks before the last spend together (default 0.25); the last spends the rest. */
  earlyShare?: number;
}

/**
 * Fewest rounds that give an interval for the family at alpha: the exact signed-rank test's
 * smallest two-sided p with n pairs is 2 / 2^n, and Holm's first step is alpha / m.
 */
export function fewestRounds(alpha: number, tests: number): number {
  return pairsNeededFor(alpha / Math.max(1, tests));
}

/**
 * The plan: without a budget, one look at the fewest rounds that give an interval. With one
 * (maxRounds), as many looks as fit (at most maxLooks, minGap apart), the first at the fewest
 * rounds that give an interval at its share, the last at maxRounds; the early looks share
 * earlyShare of alpha evenly and the last spends the rest, so the last look, where most of the
 * power is, loses little against a single look (simulated, bench/ab-simulation.ts: an even
 * split over 3 looks cost a +20% change a sixth of its detections). One look at maxRounds when
 * no second fits; never fewer rounds than an interval needs.
 */
export function planLooks(request: PlanRequest): SequentialPlan {
  const { alpha, maxRounds } = request;
  const tests = Math.max(1, request.tests);
  const single = fewestRounds(alpha, tests);
  const plan = (looks: Look[]): SequentialPlan => ({ alpha, tests, looks });
  if (maxRounds === undefined || maxRounds <= single) return plan([{ rounds: single, alpha }]);
  const minGap = request.minGap ?? 2;
  const earlyShare = request.earlyShare ?? 0.25;
  for (let k = request.maxLooks ?? 3; k >= 2; k--) {
    const early = (alpha * earlyShare) / (k - 1);
    const first = fewestRounds(early, tests);
    if (first + (k - 1) * minGap > maxRounds) continue;
    const looks = Array.from({ length: k }, (_, i) => ({
      rounds: first + Math.round((i * (maxRounds - first)) / (k - 1)),
      alpha: early,
    }));
    // the last look takes what is left, so the shares sum to alpha exactly, never above
    looks[k - 1]!.alpha = alpha - early * (k - 1);
    return plan(looks);
  }
  return plan([{ rounds: maxRounds, alpha }]);
}

/** The look taken after this many rounds, if one is planned there. */
export function lookAt(plan: SequentialPlan, rounds: number): number | undefined {
  const i = plan.looks.findIndex((l) => l.rounds === rounds);
  return i < 0 ? undefined : i;
}

/** One tested metric of a block at a look, as the runner sees it. */
export interface MetricSoFar {
  /** Per round so far, log(head / base). */
  logRatios: readonly number[];
  biggerIsBetter: boolean;
  /** Decided at an earlier look (or nothing more to learn: its cell stopped). */
  decided: boolean;
  /**
   * The rounds are sized for it (the primary metric, CPU per request): once every such metric is
   * decided or precise enough, the block may stop with the others as they stand. Where none
   * holds the rounds, every metric does.
   */
  holdsRounds?: boolean;
}

export interface StopDecision {
  /** Per metric, decided at this look or before. */
  decided: boolean[];
  /** Per undecided metric: its change at 80% power is within the target (more rounds are not needed for it). */
  precise: boolean[];
  /** Every metric that holds the rounds decided or precise: no more rounds needed. */
  stop: boolean;
}

/**
 * Whether a block may stop at a look: each metric judged at the most cautious level Holm uses at
 * this look, alpha_k / m (a metric decided there is decided by Holm too: its p is within every
 * step's level, and its interval is at least as wide as the one Holm's level gives). A decided
 * metric stays decided.
 */
export function stopAtLook(
  plan: SequentialPlan,
  look: number,
  metrics: readonly MetricSoFar[],
  thresholdPct: number,
  targetPct?: number,
): StopDecision {
  const at = plan.looks[look];
  if (at === undefined) throw new Error(`stopAtLook: the plan has no look ${look}`);
  const level = at.alpha / plan.tests;
  const judged = metrics.map((m) =>
    m.decided
      ? undefined
      : judgePaired(m.logRatios, { level, biggerIsBetter: m.biggerIsBetter, thresholdPct }),
  );
  const decided = judged.map((j) => j === undefined || j.verdict !== "inconclusive");
  // Rounds sized for power: an undecided metric whose change at 80% power is within the target
  // needs no more rounds, unless its estimate already reaches the threshold (a change as large as
  // a verdict needs, not yet significant at this look: more rounds are what decides it). No test
  // is made of it, so no alpha is spent; any rule for stopping keeps the family's bound.
  const precise = judged.map(
    (j, i) =>
      !decided[i] &&
      targetPct !== undefined &&
      j?.detectablePct !== undefined &&
      j.detectablePct <= targetPct &&
      Math.abs(j.estimatePct ?? 0) < thresholdPct,
  );
  const someHold = metrics.some((m) => m.holdsRounds);
  // with a target, the metrics the rounds are sized for (every metric where none is); without one, every metric
  const settled = (d: boolean, i: number) =>
    d || precise[i] || (targetPct !== undefined && someHold && !metrics[i]!.holdsRounds);
  return { decided, precise, stop: decided.every(settled) };
}

/** The looks a family is judged at: a run's plan, or (`planned` false) one look at every round. */
export interface LookPlan {
  looks: readonly Look[];
  planned: boolean;
}

/** One look at every round a metric has, at alpha: a run that did not plan its rounds. */
export function everyRound(alpha: number): LookPlan {
  return { looks: [{ rounds: Number.MAX_SAFE_INTEGER, alpha }], planned: false };
}

/** A tested metric as the looks read it: its values paired by round, the rounds its cell measured. */
export type LookedMember = Pick<PairedMember, "pairs" | "rounds" | "usable"> & {
  spec: Pick<MetricSpec, "biggerIsBetter">;
};

/** A metric's figures at the look that decided it, or at the last look it reached. */
export interface Judged {
  judgement: PairedJudgement;
  pairs: RoundPair[];
  look: number;
  level: number;
  rejected: boolean;
}

/**
 * Holm at every look (the top of this file says why the family's rate holds): a metric whose
 * rounds reached the look is tested on its rounds so far, one that did not counts as p = 1, one
 * found regressed or improved earlier as p = 0; a decided metric stays decided. Per look, the
 * metrics its rounds reached and how many it decided.
 */
export function judgeLooks<M extends LookedMember>(
  members: readonly M[],
  plan: LookPlan,
  thresholdPct: number,
): { judged: Array<Judged | undefined>; taken: Array<{ reached: M[]; decided: number }> } {
  const judged: Array<Judged | undefined> = members.map(() => undefined);
  const decided = members.map(() => false);
  const upTo = (m: M, rounds: number) => m.pairs.filter((p) => p.round < rounds);
  const taken = plan.looks.map((look, k) => {
    const reached = members.map((m) => m.usable && (!plan.planned || m.rounds >= look.rounds));
    const ps = members.map((m, i) => {
      const v = judged[i]?.judgement.verdict;
      if (decided[i] && (v === "regressed" || v === "improved")) return 0;
      return reached[i] ? wilcoxonSignedRank(logRatios(upTo(m, look.rounds))).p : 1;
    });
    const { rejected, levels } = holm(ps, look.alpha);
    let decidedHere = 0;
    members.forEach((m, i) => {
      if (decided[i] || !reached[i]) return;
      const pairs = upTo(m, look.rounds);
      const at = {
        level: levels[i]!,
        rejected: rejected[i]!,
        biggerIsBetter: m.spec.biggerIsBetter,
        thresholdPct,
      };
      const judgement = judgePaired(logRatios(pairs), at);
      judged[i] = { judgement, pairs, look: k, level: at.level, rejected: at.rejected };
      if (judgement.verdict !== "inconclusive") {
        decided[i] = true;
        decidedHere += 1;
      }
    });
    return { reached: members.filter((_, i) => reached[i]), decided: decidedHere };
  });
  return { judged, taken };
}
