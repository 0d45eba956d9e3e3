import { arrivalVus, ENGINE_FIXED_SENDER_POOL, littleLawVus } from "../../engines/load.js";
import { expandRequests } from "../../engines/requests.js";
import type { ProbeResult } from "../../engines/types.js";
import { usesTls } from "../../results/protocols.js";
import {
  ALL_METRICS,
  DEFAULT_THRESHOLD_PCT,
  logRatios,
  pairedTwins,
  ROUNDS_METRIC,
  type CompareMetric,
} from "../../stats/tested-metrics.js";
import { cellKey, type Cell } from "../../results/schema.js";
import { lookAt, stopAtLook, type SequentialPlan } from "../../stats/sequential.js";
import type { StealRule } from "../../stats/steal.js";
import { logTail } from "../../util/logs.js";
import {
  cellName,
  cellStem,
  finishCell,
  Interrupted,
  LOG_TAIL_LINES,
  oneLine,
  stopCell,
  updateCell,
} from "../../runner/cell.js";
import type { ActiveCell } from "../../runner/context.js";
import type { BlockContext } from "./context.js";
import { plannedSeconds, type Block, type PlannedCell } from "../../runner/plan.js";
import type { BlockUpstream, MeasurementStep } from "../../runner/lifecycle.js";
import type { BlockRun } from "../../runner/measurement.js";
import { describeRepetition, measureRepetition, runEngine } from "./repetition.js";
import type { Slot } from "../../runner/rounds.js";
import { sidecarGone } from "../../runner/sidecar.js";

/**
 * One block (a scenario and load level) of a wall-clock run, as a step of the block lifecycle
 * (lifecycle.ts: the upstreams, the rounds, results.json saved after each slot): every cell's
 * proxy up and probed, warm-ups, then the measured repetitions, each checked (the proxy, its
 * sidecar and the upstream still alive), a sequential plan stopping the rounds once decided.
 */

/** Probes a started cell; a wrong answer stops it with the reasons. */
async function probeCell(a: ActiveCell, ctx: BlockContext): Promise<void> {
  const protocol = a.planned.scenario.manifest.protocol;
  const probe = await ctx.deps.engines
    .probe(a.baseUrl, a.planned.scenario.manifest, usesTls(protocol) ? ctx.tls?.caPem : undefined)
    .catch((err: unknown): ProbeResult => ({
      ok: false,
      reasons: [`could not send the scenario's requests (${(err as Error).message})`],
      statusCodes: {},
    }));
  a.servedByProcess += 1;
  if (probe.ok) return;
  const codes = Object.entries(probe.statusCodes)
    .map(([code, n]) => `${code}: ${n}`)
    .join(", ");
  const seen = probe.reasons.length === 0 || codes ? [`status codes seen ${codes || "none"}`] : [];
  for (const reason of [...probe.reasons, ...seen])
    a.problems.push({ status: "invalid", reason: `probe: ${reason}` });
  await stopCell(a);
}

/**
 * A block of a wall-clock run, its cells those left to run, as the block lifecycle runs it: each
 * proxy up and probed, a warm-up, engine runs in rounds.
 */
export function wallClockBlock(
  block: Block,
  cells: PlannedCell[],
  ctx: BlockContext,
  rounds?: RoundsControl,
): BlockRun<ActiveCell> {
  const perCellS = plannedSeconds(block, ctx.settings.repetitions, 1, ctx.settings.proxyLifetime);
  let active: ActiveCell[] = [];
  let stopWhenDecided: ((done: Slot<ActiveCell>, next?: Slot<ActiveCell>) => boolean) | undefined;
  const step: MeasurementStep<ActiveCell> = {
    proxies: { block, ctx, per: "block", renew: ctx.settings.proxyLifetime === "round" },
    startCell: (_planned, _upstream, a) => recordAndProbe(a!, block, ctx, perCellS),
    skips: (a) => a.stopped,
    beforeRounds: async (cells) => {
      active = cells;
      await warmUp(active, block, ctx, perCellS);
      stopWhenDecided = rounds && stopWhenDecidedRule(active, block, ctx, rounds);
    },
    measure: (a, round, upstreams) => measureSlot(a, round, active, block, [...upstreams.values()], ctx),
    endsRounds: (slot, next) => stopWhenDecided?.(slot, next) ?? false,
    afterRounds: (active) => {
      for (const a of active) if (a.cell.finishedAt === undefined) finishCell(a);
    },
    stopCell,
  };
  return { lifecycle: { cells, logStem: block.key, ctx }, step };
}

/** A cell started, recorded in results.json and probed; one that is not up is finished at once. */
async function recordAndProbe(
  a: ActiveCell,
  block: Block,
  ctx: BlockContext,
  perCellS: number,
): Promise<ActiveCell> {
  const { progress } = ctx;
  ctx.results.cells.push(a.cell);
  if (!a.stopped) {
    progress.step(`${block.key} ${cellName(a)}`, -1, ctx.settings.repetitions);
    await probeCell(a, ctx);
  }
  if (a.stopped) {
    progress.drop(perCellS);
    finishStopped(a, ctx);
  }
  return a;
}

/** A cell stopped before it measured all its rounds: finished, and why said on stderr. */
function finishStopped(a: ActiveCell, ctx: BlockContext): void {
  finishCell(a);
  ctx.progress.line(`${a.cell.id}: ${a.cell.status}: ${a.cell.reasons.join("; ")}`);
}

/**
 * The discarded warm-up of every cell; then an arrival-rate load's VU pool, sized from the
 * slowest warm-up's p99, the same for every cell of the block: a pool sized per cell would give
 * two proxies different loads (more VUs, more connections) for every round of the run.
 */
async function warmUp(
  active: ActiveCell[],
  block: Block,
  ctx: BlockContext,
  perCellS: number,
): Promise<void> {
  const p99s: number[] = [];
  for (const a of active) {
    if (ctx.isInterrupted()) throw new Interrupted();
    const p99 = await warmUpCell(a, block, ctx, { remainingS: perCellS - block.load.warmupS });
    if (p99 !== undefined && !a.stopped) p99s.push(p99);
  }
  if (p99s.length > 0) for (const a of active) if (!a.stopped) sizeVuPool(a, Math.max(...p99s));
}

/**
 * One cell's discarded warm-up: the block's first (`before` undefined), whose p99 it returns to
 * size an arrival-rate load's VU pool, or the one of a process started anew for round `before`.
 * Its figures are not kept, so the proxy's cost is not read (no idle probe: a fresh process pays
 * one, before its measured repetition, instead of two).
 */
export async function warmUpCell(
  a: ActiveCell,
  block: Block,
  ctx: BlockContext,
  { before, remainingS }: { before?: number; remainingS: number },
): Promise<number | undefined> {
  if (block.load.warmupS <= 0) return undefined;
  ctx.progress.step(`${block.key} ${cellName(a)}`, before ?? 0, ctx.settings.repetitions);
  const stem = `${block.key}-${cellStem(a)}-${block.engine}-warmup${before === undefined ? "" : `-rep${before + 1}`}`;
  const { m } = await runEngine(a, block, block.load.warmupS, stem, ctx);
  a.servedByProcess += 1;
  ctx.progress.advance(block.load.warmupS);
  const what = before === undefined ? "the warm-up" : `the warm-up of repetition ${before + 1}`;
  await checkAlive(a, what, ctx, remainingS);
  return m.latencyMs.p99;
}

/**
 * --proxy-lifetime round: before a repetition, a proxy whose process has served anything (its
 * probe, the block's first warm-up, a repetition) is started anew (by the lifecycle: the step's
 * `proxies.renew`) and warmed up here, so each round measures a process of its own, started and
 * warmed up just before it, the first round too (the block's warm-ups run in the cells' order,
 * so the last cell's would be the freshest); false when it did not come up again (the cell is
 * then stopped, with the reason).
 */
async function freshProcess(a: ActiveCell, block: Block, round: number, ctx: BlockContext): Promise<boolean> {
  if (ctx.settings.proxyLifetime !== "round" || a.servedByProcess > 0 || !a.restart) return true;
  const remainingS = (ctx.settings.repetitions - round) * (block.load.warmupS + block.load.durationS);
  if (!a.stopped)
    await warmUpCell(a, block, ctx, { before: round, remainingS: remainingS - block.load.warmupS });
  if (!a.stopped) return true;
  ctx.progress.drop(remainingS);
  return false;
}

/** An arrival-rate load's VU pool sized from the warm-up's latency (recorded on the cell). */
function sizeVuPool(a: ActiveCell, p99Ms: number): void {
  const load = a.planned.load;
  if (load.model !== "constant-arrival-rate" || !ENGINE_FIXED_SENDER_POOL[a.planned.engine]) return;
  const vus = littleLawVus(load, p99Ms, expandRequests(a.planned.scenario.manifest).length);
  if (vus === arrivalVus(load)) return;
  a.planned = { ...a.planned, load: { ...load, vus } };
  a.cell.loadgenVus = vus;
}

/** --repetitions auto: the plan, the compared variants, and when the block's share of the budget ends. */
export interface RoundsControl {
  plan: SequentialPlan;
  variants: [string, string];
  /** The metrics the comparison tests (the run's --test-metrics); absent: every metric. */
  tested?: readonly CompareMetric[];
  /** --target: an undecided metric whose change at 80% power is within it needs no more rounds. */
  targetPct?: number;
  deadlineMs?: number;
  /** Rounds with steal above its limit are left out of the metrics that hold it, as compare does. */
  steal?: StealRule;
}

/**
 * --repetitions auto: after the last slot of a round at a planned look, whether the block
 * stops there, said on stderr: every metric of its compared cells decided (or, with --target,
 * every ROUNDS_METRIC decided or precise enough), or the next look would end past the block's
 * share of the budget.
 */
function stopWhenDecidedRule(
  active: ActiveCell[],
  block: Block,
  ctx: BlockContext,
  rounds: RoundsControl,
): (done: Slot<ActiveCell>, next?: Slot<ActiveCell>) => boolean {
  const reps = ctx.settings.repetitions;
  const decided = new Set<string>();
  const startedMs = Date.now();
  const why = (done: number): string | undefined => {
    const running = active.filter((a) => !a.stopped).map((a) => a.cell);
    const look = decideAtLook(running, rounds, done, decided);
    if (look === undefined) return undefined;
    if (look.stop && look.decided === look.metrics) return `every metric of its ${look.metrics} decided`;
    if (look.stop)
      return `${look.decided} of its ${look.metrics} metrics decided; every ${ROUNDS_METRIC} decided or precise enough to show ${rounds.targetPct}% at 80% power (--target)`;
    const next = rounds.plan.looks[look.index + 1];
    if (next === undefined || rounds.deadlineMs === undefined) return undefined;
    const now = Date.now();
    const perRound = (now - startedMs) / done;
    if (now + perRound * (next.rounds - done) <= rounds.deadlineMs) return undefined;
    return `the next look (${next.rounds} rounds) would end past the block's share of the budget; ${look.metrics - look.decided} metrics undecided`;
  };
  return ({ round }, next) => {
    if (next?.round === round || round + 1 >= reps) return false;
    const stopped = why(round + 1);
    if (stopped === undefined) return false;
    const left = active.filter((c) => !c.stopped).length * (reps - round - 1) * block.load.durationS;
    ctx.progress.drop(left);
    ctx.progress.line(
      `${block.key}: stopped after ${round + 1} rounds (look ${lookAt(rounds.plan, round + 1)! + 1} of ${rounds.plan.looks.length}): ${stopped}`,
    );
    return true;
  };
}

/**
 * One repetition of one cell and its checks (the lifecycle saves results.json after it): a proxy
 * or an upstream that died fails it; a sidecar that died makes it invalid (its responses were not
 * the proxy's work) and stops the cell; an upstream that died stops every cell of the block.
 */
async function measureSlot(
  a: ActiveCell,
  round: number,
  active: ActiveCell[],
  block: Block,
  upstreams: BlockUpstream[],
  ctx: BlockContext,
): Promise<void> {
  const { progress } = ctx;
  const reps = ctx.settings.repetitions;
  if (!(await freshProcess(a, block, round, ctx))) return finishStopped(a, ctx);
  progress.step(`${block.key} ${cellName(a)}`, round + 1, reps);
  const repetition = await measureRepetition(a, block, round, ctx);
  a.servedByProcess += 1;
  progress.advance(block.load.durationS);
  const during = `repetition ${round + 1}`;
  const leftS = (reps - round - 1) * block.load.durationS;
  const died = await checkAlive(a, during, ctx, leftS);
  const sidecar = a.stopped ? undefined : await sidecarGone(a, during);
  if (sidecar) {
    await stopCell(a);
    progress.drop(leftS);
  }
  const gone = upstreams.find((u) => !u.started.proc.alive());
  const upstream = gone && `the upstream server exited during ${during} (log: ${gone.logRel})`;
  if (upstream) {
    for (const other of active.filter((c) => !c.stopped)) {
      other.problems.push({ status: "failed", reason: upstream });
      await stopCell(other);
    }
  }
  if (died || upstream) repetition.status = "failed";
  else if (sidecar && repetition.status !== "failed") repetition.status = "invalid";
  repetition.reasons.push(...[died, sidecar, upstream].filter((r) => r !== undefined));
  a.cell.repetitions.push(repetition);
  updateCell(a.cell, a.problems);
  if (round + 1 === reps || a.stopped) finishCell(a);
  progress.line(describeRepetition(a.cell.id, round, reps, repetition));
}

/**
 * The stopping rule of a block's cells after `done` rounds: undefined when no look is planned
 * there; else the look, how many compared metrics (of the base cells with a head twin) there
 * are and are decided, and whether all are (src/stats/sequential.ts). `decided` keeps what
 * earlier looks decided and is updated.
 */
export function decideAtLook(
  cells: readonly Cell[],
  rounds: Pick<RoundsControl, "plan" | "variants" | "tested" | "targetPct" | "steal">,
  done: number,
  decided: Set<string>,
): { index: number; metrics: number; decided: number; precise: number; stop: boolean } | undefined {
  const index = lookAt(rounds.plan, done);
  if (index === undefined) return undefined;
  const [base, head] = rounds.variants;
  const heads = new Map(cells.filter((c) => c.variant === head).map((c) => [cellKey(c), c]));
  // The tested metrics of each base cell and its head twin, paired by round as compare pairs them.
  const metrics = cells
    .filter((c) => c.variant === base && heads.has(cellKey(c)))
    .flatMap((c) => {
      const twin = heads.get(cellKey(c))!;
      const members = pairedTwins(c, twin, 0, rounds.tested ?? ALL_METRICS, rounds.steal);
      return members.map(({ spec, pairs, usable }) => {
        const key = `${cellKey(c)} ${spec.metric}`;
        const soFar = {
          logRatios: usable ? logRatios(pairs) : [],
          biggerIsBetter: spec.biggerIsBetter,
          decided: decided.has(key) || !usable,
          holdsRounds: spec.metric === ROUNDS_METRIC,
        };
        return { key, soFar };
      });
    });
  const decision = stopAtLook(
    rounds.plan,
    index,
    metrics.map((m) => m.soFar),
    DEFAULT_THRESHOLD_PCT,
    rounds.targetPct,
  );
  metrics.forEach((m, i) => {
    if (decision.decided[i]) decided.add(m.key);
  });
  return {
    index,
    metrics: metrics.length,
    decided: decision.decided.filter(Boolean).length,
    precise: decision.precise.filter(Boolean).length,
    stop: decision.stop,
  };
}

/** When the cell's proxy died: stops the cell and returns why; undefined while it is alive. */
async function checkAlive(
  a: ActiveCell,
  during: string,
  ctx: BlockContext,
  remainingS: number,
): Promise<string | undefined> {
  if (!a.proc || a.proc.alive() || a.stopped) return undefined;
  const { code, signal } = await a.proc.exited;
  const tail = a.logFile ? await logTail(a.logFile, LOG_TAIL_LINES) : "";
  const reason =
    `${a.planned.proxy.manifest.name} exited during ${during} (${signal ? `signal ${signal}` : `exit code ${code}`})` +
    (tail ? `; log: ${oneLine(tail)}` : "");
  a.problems.push({ status: "failed", reason });
  a.stopped = true;
  ctx.progress.drop(remainingS);
  return reason;
}
