import { mkdir } from "node:fs/promises";
import path from "node:path";
import { UserError } from "../util/errors.js";
import { logTail } from "../util/logs.js";
import type { Settings } from "../results/schema.js";
import { Interrupted, stopCell } from "./cell.js";
import type { ActiveCell, CellContext } from "./context.js";
import { NativeRuntime } from "./native-runtime.js";
import type { Block, PlannedCell } from "./plan.js";
import { waitReady } from "./ready.js";
import { roundOrder, type Slot } from "./rounds.js";
import type { Runtime } from "./runtime.js";
import { buildUpstreamSpec } from "./specs.js";
import { startCell } from "./start-cell.js";
import type { TlsFiles } from "./tls.js";
import { ensureUpstream, startUpstream, type StartedUpstream } from "./upstream.js";

/**
 * The lifecycle of a block, whatever it measures (an engine's wall-clock run, a count under
 * Valgrind, a max-rate search): one upstream per distinct upstream setting of its cells, each
 * cell started (its proxy too, for the block or for each slot, when the step asks), the
 * measurement in rounds with the results saved after every slot, and everything it started
 * stopped however it ends. What is measured is the block's step.
 */

/**
 * What a block takes from its run (a wall-clock run's block context has it all): the rounds,
 * where the upstreams run (natively by default) and are pinned, the results folder, and the save.
 */
interface LifecycleContext {
  settings: Pick<Settings, "repetitions" | "roundOrder" | "seed"> & {
    cpus: Pick<Settings["cpus"], "upstream">;
  };
  upstreamRuntime?: Runtime;
  /** The upstream server's binary, when the run has looked it up already (else looked up here). */
  upstreamBinary?: string;
  /** The results folder: the upstreams log to `logs/<logStem>-upstream[-N].log` in it. */
  dir: string;
  tls?: TlsFiles;
  signal?: AbortSignal;
  isInterrupted?(): boolean;
  /** Writes the results so far (after each cell's start and each slot). */
  save?(): Promise<void>;
}

export interface BlockUpstream {
  started: StartedUpstream;
  logRel: string;
}

/** A block's upstreams, by upstreamKey. */
type BlockUpstreams = Map<string, BlockUpstream>;

/**
 * A step's proxies, started by the lifecycle (start-cell.ts): up for the whole `block`, or
 * started for each `slot` and stopped after it (the other proxies of the block down meanwhile).
 */
interface ProxyStarts {
  block: Block;
  ctx: CellContext;
  per: "block" | "slot";
  /** A block's proxy started anew before a slot once its process has served anything (--proxy-lifetime round). */
  renew?: boolean;
}

/** The measurement a block runs: the cell type C is what a started cell holds. */
export interface MeasurementStep<C> {
  /** Its proxies, when the lifecycle starts them; absent: the step starts what it measures. */
  proxies?: ProxyStarts;
  /** The planned cell's record; `proxy`: its proxy, started for the block. */
  startCell(planned: PlannedCell, upstream: BlockUpstream, proxy?: ActiveCell): Promise<C>;
  /** A cell whose slots are passed over (stopped, failed); one at its start is not measured at all. */
  skips(cell: C): boolean;
  /** After every cell is up, before the first round (the warm-ups). */
  beforeRounds?(cells: C[]): Promise<void>;
  /** One slot: the cell's measurement in this round; `proxy`: its proxy, started for the slot. */
  measure(cell: C, round: number, upstreams: BlockUpstreams, proxy?: ActiveCell): Promise<void>;
  /** After a slot, `next` the one to come: true ends the rounds (a sequential plan decided). */
  endsRounds?(slot: Slot<C>, next: Slot<C> | undefined): boolean;
  /** After the rounds, before the last save. */
  afterRounds?(cells: C[]): void;
  /** Stops what startCell started; called in the end for every cell measured. */
  stopCell?(cell: C): Promise<void>;
}

export interface BlockLifecycle {
  cells: readonly PlannedCell[];
  /** The upstreams' log files: `logs/<logStem>-upstream[-N].log`. */
  logStem: string;
  ctx: LifecycleContext;
}

/**
 * Runs one block: its upstreams, every cell started, the step's rounds in the recorded order,
 * results saved after each slot; cells and upstreams stopped in the end. An interruption
 * (Interrupted) ends it quietly: the run's signal handler saves and exits.
 */
export async function runBlockLifecycle<C>(block: BlockLifecycle, step: MeasurementStep<C>): Promise<void> {
  const { ctx } = block;
  const measured: C[] = [];
  const plannedOf = new Map<C, PlannedCell>();
  const blockProxyOf = new Map<C, ActiveCell>();
  let upstreams: BlockUpstreams = new Map();
  const startProxy = (planned: PlannedCell) => {
    const { block: b, ctx: cellCtx } = step.proxies!;
    const upstream = upstreams.get(upstreamKey(planned))!;
    return startCell(planned, b, upstream.started, upstream.logRel, cellCtx);
  };
  /** Before a slot: its proxy started (per slot), or its block's proxy started anew once it has served (renew). */
  const beforeSlot = async (cell: C): Promise<ActiveCell | undefined> => {
    if (step.proxies?.per === "slot") return startProxy(plannedOf.get(cell)!);
    const running = blockProxyOf.get(cell);
    if (step.proxies?.renew && running?.restart && running.servedByProcess > 0) await running.restart();
    return undefined;
  };
  try {
    upstreams = await startUpstreams(block);
    for (const planned of block.cells) {
      throwIfInterrupted(ctx);
      const proxy = step.proxies?.per === "block" ? await startProxy(planned) : undefined;
      const cell = await step.startCell(planned, upstreams.get(upstreamKey(planned))!, proxy);
      plannedOf.set(cell, planned);
      if (proxy) blockProxyOf.set(cell, proxy);
      if (!step.skips(cell)) measured.push(cell);
      await ctx.save?.();
    }
    await step.beforeRounds?.(measured);
    const { repetitions, roundOrder: order, seed } = ctx.settings;
    const slots = roundOrder(measured, repetitions, order, seed);
    for (const [i, slot] of slots.entries()) {
      throwIfInterrupted(ctx);
      if (!step.skips(slot.cell)) {
        const proxy = await beforeSlot(slot.cell);
        try {
          await step.measure(slot.cell, slot.round, upstreams, proxy);
        } finally {
          if (proxy) await stopCell(proxy);
        }
        await ctx.save?.();
      }
      if (step.endsRounds?.(slot, slots[i + 1])) break;
    }
    step.afterRounds?.(measured);
    await ctx.save?.();
  } catch (err) {
    if (err instanceof Interrupted) return;
    throw err;
  } finally {
    for (const cell of measured) await step.stopCell?.(cell);
    await stopUpstreams(upstreams);
  }
}

function throwIfInterrupted(ctx: LifecycleContext): void {
  if (ctx.isInterrupted?.()) throw new Interrupted();
}

/** Cells with the same upstream setting share one upstream. */
function upstreamKey(planned: Pick<PlannedCell, "scenario">): string {
  return JSON.stringify(planned.scenario.manifest.upstream);
}

/**
 * One upstream per distinct upstream setting among the cells (variants' scenarios may differ),
 * each answering /health before the next starts; on a failure, those started are stopped.
 */
async function startUpstreams({ cells, logStem, ctx }: BlockLifecycle): Promise<BlockUpstreams> {
  const out: BlockUpstreams = new Map();
  const binary = ctx.upstreamBinary ?? (await ensureUpstream());
  const runtime = ctx.upstreamRuntime ?? new NativeRuntime();
  await mkdir(path.join(ctx.dir, "logs"), { recursive: true });
  try {
    for (const planned of cells) {
      const key = upstreamKey(planned);
      if (out.has(key)) continue;
      const logRel = `logs/${logStem}-upstream${out.size === 0 ? "" : `-${out.size + 1}`}.log`;
      const logFile = path.join(ctx.dir, logRel);
      const { manifest } = planned.scenario;
      const spec = buildUpstreamSpec(binary, manifest, ctx.settings.cpus.upstream, logFile, ctx.tls);
      const started = await startUpstream(runtime, spec);
      out.set(key, { started, logRel });
      const url = `http://${started.host}:${started.port}/health`;
      const notReady = await waitReady(url, 10, started.proc, ctx.signal);
      if (notReady) {
        throw new UserError(
          `the upstream server is not answering: ${notReady}\n${await logTail(logFile)}`,
          1,
        );
      }
    }
  } catch (err) {
    await stopUpstreams(out);
    throw err;
  }
  return out;
}

async function stopUpstreams(upstreams: BlockUpstreams): Promise<void> {
  for (const u of upstreams.values()) await u.started.proc.stop();
}
