import { requestsPerIteration } from "../../engines/requests.js";
import type { EngineAdapter, EngineInvocation, EngineMeasurement } from "../../engines/types.js";
import type { Load } from "../../results/schema.js";
import { withoutUndefined } from "../../util/objects.js";

/**
 * `proxybench max-rate`: the highest arrival rate a target holds, as Nighthawk's adaptive search
 * finds it, instead of reading throughput off a closed-loop run whose load generator may be the
 * limit. Each step is a short open-model (constant-arrival-rate) run; a step holds when
 * - no request failed (no transport error, no non-2xx, no failed check),
 * - p99 latency stays under the limit (`--max-p99`, default 50 ms),
 * - the successful throughput reaches the rate asked for (within 5%),
 * - and the load generator was not the limit (no dropped iteration, CPU below the bound).
 * The search ramps the rate up exponentially until a step fails, then bisects between the last
 * rate that held and the first that did not, until they are within the precision (5%) or the
 * step budget is spent. The answer is the last rate that held: a rate that was measured.
 */

export interface RateVerdict {
  ok: boolean;
  p99Ms?: number;
  errors?: number;
  /** Why the step did not hold (empty when it did). */
  reasons: string[];
  /**
   * The step failed only because of the load generator (it dropped iterations, or used its cores
   * up): it says nothing against the target at this rate.
   */
  loadgenBound?: boolean;
  /**
   * The step failed while other work kept the load generator's cores busy: the failure may be the
   * machine's rather than the target's. (Busy cores alone never fail a step: a target that met
   * every bound under that noise holds the rate.)
   */
  noisy?: boolean;
}

export const DEFAULT_MAX_RATE_OPTIONS = {
  /** First rate tried (iterations per second). */
  startRate: 100,
  /** Rate multiplier of the ramp. */
  growth: 2,
  /** Stop when (bad - good) / good is at most this. */
  precision: 0.05,
  /** Measured steps at most (ramp and bisection together). */
  maxSteps: 14,
  /** Never ask for more than this. */
  maxRate: 1_000_000,
  /** Below this, give up: the target holds no rate worth the name. */
  minRate: 1,
};

export type MaxRateOptions = typeof DEFAULT_MAX_RATE_OPTIONS;

export interface MaxRateStep extends RateVerdict {
  index: number;
  phase: "ramp" | "bisect";
  rate: number;
}

export interface MaxRateResult {
  /** The highest rate that held; undefined when none did. */
  rate?: number;
  /** The lowest rate that did not hold, when one was found. */
  failedRate?: number;
  steps: MaxRateStep[];
  /** True when the bracket closed within the precision (or the max rate held). */
  converged: boolean;
  /** Why the search stopped, in words. */
  stoppedBecause: string;
  /**
   * The first rate that did not hold failed (also) because of the load generator: the answer is
   * a floor of the target's rate, not its limit.
   */
  loadgenLimited: boolean;
}

/**
 * The search itself (pure apart from `measure`): the tests drive it with a fake target.
 * Rates are rounded to whole iterations per second.
 */
export async function searchMaxRate(
  measure: (rate: number) => Promise<RateVerdict>,
  options: Partial<MaxRateOptions> = {},
  onStep?: (step: MaxRateStep) => void,
): Promise<MaxRateResult> {
  const o = { ...DEFAULT_MAX_RATE_OPTIONS, ...options };
  const steps: MaxRateStep[] = [];
  let good: number | undefined;
  let bad: number | undefined;
  const step = async (rate: number, phase: MaxRateStep["phase"]): Promise<boolean> => {
    const verdict = await measure(rate);
    const done: MaxRateStep = { index: steps.length, phase, rate, ...verdict };
    steps.push(done);
    onStep?.(done);
    if (verdict.ok) good = rate;
    else bad = rate;
    return verdict.ok;
  };
  const result = (converged: boolean, stoppedBecause: string): MaxRateResult => ({
    ...withoutUndefined({ rate: good, failedRate: bad }),
    steps,
    converged,
    stoppedBecause,
    loadgenLimited: steps.some((st) => st.rate === bad && st.loadgenBound === true),
  });

  // Ramp: up while the target holds, down while it does not (a start above its limit).
  let rate = Math.max(o.minRate, Math.min(o.maxRate, Math.round(o.startRate)));
  const up = await step(rate, "ramp");
  while (steps.length < o.maxSteps && (up ? bad : good) === undefined) {
    const next = up ? Math.min(o.maxRate, Math.round(rate * o.growth)) : Math.floor(rate / o.growth);
    if (up && rate >= o.maxRate) return result(true, `the maximum rate asked for (${o.maxRate}/s) held`);
    if (!up && (next < o.minRate || next >= rate))
      return result(false, `no rate down to ${o.minRate}/s held`);
    rate = next;
    await step(rate, "ramp");
  }
  // Bisect between the last rate that held and the first that did not.
  while (good !== undefined && bad !== undefined && (bad - good) / good > o.precision) {
    if (steps.length >= o.maxSteps) {
      return result(false, `the step budget (${o.maxSteps}) ran out between ${good}/s and ${bad}/s`);
    }
    const mid = Math.round((good + bad) / 2);
    if (mid === good || mid === bad) break;
    await step(mid, "bisect");
  }
  if (good === undefined || bad === undefined) {
    return result(false, `the step budget (${o.maxSteps}) ran out during the ramp`);
  }
  return result(true, `within ${Math.round(o.precision * 100)}%: ${good}/s held, ${bad}/s did not`);
}

export const DEFAULT_MAX_P99_MS = 50;
export const DEFAULT_RATE_LIMITS = {
  /** p99 latency of successful responses must stay at or under this. */
  maxP99Ms: DEFAULT_MAX_P99_MS,
  /** Successful throughput must reach this share of the rate asked for. */
  minThroughputShare: 0.95,
  /** Load-generator CPU (cores) at or above this share of its cores means it was the limit. */
  loadgenSaturation: 0.9,
};

type RateLimits = typeof DEFAULT_RATE_LIMITS;

/**
 * Whether one step held (pure). `requestsPerIteration` turns iterations per second (what k6's
 * arrival rate counts) into the requests per second the throughput is compared with.
 */
export function judgeRateStep(
  rate: number,
  m: EngineMeasurement,
  ctx: { limits: RateLimits; loadgenCores: number; requestsPerIteration: number },
): RateVerdict {
  const reasons: string[] = [];
  if (m.engineErrors.length > 0) reasons.push(...m.engineErrors);
  const failures = m.errors + m.non2xx + m.checkFailures;
  if (failures > 0) {
    reasons.push(
      `${failures} failed requests (${m.errors} transport errors, ${m.non2xx} non-2xx, ${m.checkFailures} failed checks)`,
    );
  }
  const p99 = m.latencyMs.p99;
  if (p99 > ctx.limits.maxP99Ms) reasons.push(`p99 ${round(p99)} ms > ${ctx.limits.maxP99Ms} ms`);
  const wanted = rate * ctx.requestsPerIteration;
  if (m.rps < wanted * ctx.limits.minThroughputShare) {
    reasons.push(`served ${round(m.rps)} req/s of the ${round(wanted)} asked for`);
  }
  let loadgenBound = false;
  if (m.droppedIterations > 0) {
    reasons.push(`the load generator dropped ${m.droppedIterations} iterations`);
    loadgenBound = true;
  }
  const bound = ctx.limits.loadgenSaturation * ctx.loadgenCores;
  if (m.loadgenCpu !== undefined && m.loadgenCpu >= bound) {
    reasons.push(`the load generator used ${m.loadgenCpu.toFixed(2)} of its ${ctx.loadgenCores} core(s)`);
    loadgenBound = true;
  }
  const busy = m.loadgenCoresBusy !== undefined && m.loadgenCoresBusy >= bound && !loadgenBound;
  const failed = reasons.length > 0;
  if (failed && busy) {
    reasons.push(
      `the load generator's core(s) were ${Math.round(((m.loadgenCoresBusy ?? 0) / ctx.loadgenCores) * 100)}% busy` +
        (m.loadgenCpu === undefined ? "" : ` (${m.loadgenCpu.toFixed(2)} of it the load generator's own)`),
    );
  }
  return {
    ok: !failed,
    p99Ms: p99,
    errors: failures,
    reasons,
    // A saturated load generator delays its own requests: whatever else the step shows, it
    // says nothing about the target.
    ...(loadgenBound ? { loadgenBound: true } : {}),
    ...(failed && busy ? { noisy: true } : {}),
  };
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

/** The open-model load of one step (pure): k6 pre-allocates a VU per iteration per second (iterations of up to 1 s). */
export function rateStepLoad(rate: number, durationS: number): Load {
  return {
    label: `rate-${rate}`,
    model: "constant-arrival-rate",
    rate,
    durationS,
    vus: Math.min(5000, Math.max(10, Math.ceil(rate))),
  };
}

/**
 * The steps of a search on a running target (the proxy in front of the upstream, already up):
 * each a short constant-arrival-rate run of `engine` (k6), after a warm-up at the same rate when
 * `warmupS` > 0, judged against the limits. Raw outputs of every step go to `outDir` as rate-<N>.*.
 */
export function rateSteps(
  engine: EngineAdapter,
  target: Omit<EngineInvocation, "load" | "durationS" | "fileStem">,
  step: { durationS: number; warmupS: number; maxP99Ms: number },
): (rate: number) => Promise<RateVerdict> {
  const ctx = {
    limits: { ...DEFAULT_RATE_LIMITS, maxP99Ms: step.maxP99Ms },
    loadgenCores: Math.max(1, target.cpus.length),
    requestsPerIteration: requestsPerIteration(target.scenario),
  };
  const run = (rate: number, durationS: number, fileStem: string) =>
    engine.run({ ...target, load: rateStepLoad(rate, durationS), durationS, fileStem });
  let stepIndex = 0;
  return async (rate) => {
    const stem = `rate-step${stepIndex++}-${rate}`;
    if (step.warmupS > 0) await run(rate, step.warmupS, `${stem}-warmup`);
    let verdict = judgeRateStep(rate, await run(rate, step.durationS, stem), ctx);
    // A step that failed only because of the load generator, or while other work held its
    // cores, may say nothing about the target: it is measured once more.
    if (verdict.loadgenBound === true || verdict.noisy === true) {
      verdict = judgeRateStep(rate, await run(rate, step.durationS, `${stem}-again`), ctx);
    }
    return verdict;
  };
}

/** The search as a short markdown-free text block (for the terminal and the docs). */
export function formatMaxRate(result: MaxRateResult, unit = "req/s"): string {
  const lines = result.steps.map(
    (st) =>
      `  ${String(st.index + 1).padStart(2)}. ${st.phase.padEnd(6)} ${String(st.rate).padStart(7)} ${unit}  ` +
      `${st.ok ? "held" : "did not hold"}` +
      `${st.p99Ms !== undefined ? `  p99 ${round(st.p99Ms)} ms` : ""}` +
      `${st.reasons.length > 0 ? `  (${st.reasons.join("; ")})` : ""}`,
  );
  const head =
    result.rate === undefined
      ? `maximum sustainable rate: none found (${result.stoppedBecause})`
      : result.loadgenLimited
        ? `maximum sustainable rate: at least ${result.rate} ${unit}: the load generator was the limit above it, not the target (${result.stoppedBecause})`
        : `maximum sustainable rate: ${result.rate} ${unit} (${result.stoppedBecause})`;
  return [head, ...lines].join("\n");
}
