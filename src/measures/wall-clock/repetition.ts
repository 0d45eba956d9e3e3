import path from "node:path";
import { usesTls } from "../../results/protocols.js";
import { emptyMeasurement } from "../../engines/measurement.js";
import type { Classification, EngineMeasurement } from "../../engines/types.js";
import type { ProxyCost, Repetition } from "../../results/schema.js";
import { cellStem, Interrupted } from "../../runner/cell.js";
import type { ActiveCell } from "../../runner/context.js";
import type { BlockContext } from "./context.js";
import { layoutCores } from "../../runner/cpus.js";
import { noiseBetween, noiseReason, noiseSnapshot } from "./noise.js";
import type { Block } from "../../runner/plan.js";
import { finishCostSpan, startCostSpan } from "./proxy-cost.js";
import { DEFAULT_NOISE_LIMIT } from "../../stats/steal.js";
import { pickDefined, withoutUndefined } from "../../util/objects.js";

/**
 * One measured repetition of a cell: the engine run, its classification, the interference on
 * the pinned cores (other processes' CPU and the hypervisor's steal, both recorded), and the
 * bounded re-measurement of a repetition that was noisy (other processes' CPU) or dropped
 * iterations (redone alone, in its place in the round, so the pairing by round holds).
 */

/** Default: a noisy repetition (other processes' CPU above the noise limit) gets 2 more tries. */
const DEFAULT_RETRIES = 2;

export async function measureRepetition(
  a: ActiveCell,
  block: Block,
  round: number,
  ctx: BlockContext,
): Promise<Repetition> {
  const { settings } = ctx;
  const limit = settings.noiseLimit ?? DEFAULT_NOISE_LIMIT;
  const retries = settings.retries ?? DEFAULT_RETRIES;
  const cores = layoutCores(settings.cpus);
  // A runtime whose processes are not all descendants of this one (docker) names their CPU time.
  const outside = ctx.runtime.outsideCpuNs?.bind(ctx.runtime);
  const watchNoise = ctx.runtime.kind === "native" || outside !== undefined;
  const snapshot = ctx.deps.noiseSnapshot ?? noiseSnapshot;
  const crashes: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const before = watchNoise ? await snapshot(outside) : undefined;
    const startedAt = new Date().toISOString();
    const stem = `${block.key}-${cellStem(a)}-${a.planned.engine}-rep${round + 1}${attempt > 1 ? `-try${attempt}` : ""}`;
    const event = { cellId: a.cell.id, round, ...(a.cell.variant ? { variant: a.cell.variant } : {}) };
    ctx.deps.onMeasure?.({ ...event, phase: "start" });
    const { m, wallS, proxyCpu } = await measure(a, block, stem, ctx);
    ctx.deps.onMeasure?.({ ...event, phase: "end" });
    if (ctx.isInterrupted()) throw new Interrupted();
    const after = before && (await snapshot(outside));
    const noise = before && after ? noiseBetween(before, after, cores) : undefined;
    const classified = ctx.deps.engines.classifyRepetition(m, { loadgenCores: settings.cpus.loadgen.length });
    const rep = toRepetition(round, startedAt, m, classified, wallS, proxyCpu);
    rep.round = round;
    rep.attempts = attempt;
    if (noise) rep.noise = noise;
    // Other work on the cores also starves the load generator: noise explains a loadgen-bound.
    const noisy =
      rep.status === "ok" || rep.status === "loadgen-bound" ? noiseReason(noise, limit) : undefined;
    // Only loadgen-bound, with dropped iterations: worth measuring again alone.
    const dropped = classified.status === "loadgen-bound" && m.droppedIterations > 0;
    const crash = loadgenCrash(m, a);
    if ((crash || noisy || dropped) && attempt <= retries) {
      if (crash) crashes.push(`try ${attempt}: ${crash}`);
      else (a.cell.redone ??= { noisy: 0, dropped: 0 })[noisy ? "noisy" : "dropped"] += 1;
      const why = crash
        ? `the load generator crashed (${crash})`
        : noisy
          ? `noisy: ${noisy}`
          : "dropped iterations";
      ctx.progress.line(`${a.cell.id} rep ${round + 1}: ${why}; measuring it again`);
      continue;
    }
    if (crash && crashes.length > 0)
      rep.reasons.push(`it crashed on each earlier try too: ${crashes.join("; ")}`);
    if (noisy) {
      rep.status = "noisy";
      rep.reasons.push(`${noisy}, still after ${retries} more ${retries === 1 ? "try" : "tries"}`);
    }
    return rep;
  }
}

/**
 * Why the load generator's run was a crash of the instrument, worth measuring again like a noisy
 * one: killed by a signal (the run's own time limit included), or an abnormal exit with nothing
 * measured. Undefined otherwise, and when the cell's proxy or sidecar died: then the target, not
 * the instrument, is what failed.
 */
export function loadgenCrash(
  m: EngineMeasurement,
  a: Pick<ActiveCell, "proc" | "sidecar">,
): string | undefined {
  const killed = m.exitCode === null;
  const emptyExit = m.exitCode !== 0 && m.exitCode !== 99 && m.requests === 0;
  if (!killed && !emptyExit) return undefined;
  if ((a.proc && !a.proc.alive()) || (a.sidecar && !a.sidecar.proc.alive())) return undefined;
  return (
    m.engineErrors[0] ??
    (killed
      ? "the load generator was killed by a signal"
      : `the load generator exited with code ${m.exitCode} and measured nothing`)
  );
}

/**
 * One engine run against a cell, with the proxy's own cost over the engine's measured window
 * (src/measures/wall-clock/proxy-cost.ts): `proxyCpu` holds it (CPU, per request, peak memory).
 */
async function measure(
  a: ActiveCell,
  block: Block,
  fileStem: string,
  ctx: BlockContext,
): Promise<{ m: EngineMeasurement; wallS: number; proxyCpu: ProxyCost | undefined }> {
  const span = await startCostSpan(a.proc);
  const run = await runEngine(a, block, block.load.durationS, fileStem, ctx);
  const proxyCpu = await finishCostSpan(a.proc, span, run.m);
  // A peak that cannot be reset (a container's) is this round's process's own when each round starts one.
  if (proxyCpu?.peakSince === "start" && ctx.settings.proxyLifetime === "round")
    proxyCpu.peakSince = "process";
  return { ...run, proxyCpu };
}

/**
 * One engine run against a cell, the proxy's cost not read: a warm-up, whose figures are not
 * kept, pays no idle probe (src/measures/wall-clock/proxy-cost.ts).
 */
export async function runEngine(
  a: ActiveCell,
  block: Block,
  durationS: number,
  fileStem: string,
  ctx: BlockContext,
): Promise<{ m: EngineMeasurement; wallS: number }> {
  const started = performance.now();
  let m: EngineMeasurement;
  try {
    m = await ctx.deps.engines.getEngine(block.engine).run({
      scenario: a.planned.scenario.manifest,
      scenarioDir: a.planned.scenario.dir,
      load: a.planned.load,
      durationS,
      baseUrl: a.baseUrl,
      cpus: ctx.settings.cpus.loadgen,
      outDir: path.join(ctx.dir, "raw"),
      fileStem,
      signal: ctx.signal,
      ...(ctx.tls !== undefined && usesTls(a.planned.scenario.manifest.protocol)
        ? { caFile: ctx.tls.ca }
        : {}),
    });
  } catch (err) {
    if (ctx.isInterrupted()) throw new Interrupted();
    m = failedMeasurement(`${block.engine} failed: ${(err as Error).message}`);
  }
  return { m, wallS: (performance.now() - started) / 1000 };
}

export function toRepetition(
  index: number,
  startedAt: string,
  m: EngineMeasurement,
  classified: Classification,
  wallS: number,
  proxyCost?: ProxyCost,
): Repetition {
  return {
    index,
    startedAt,
    durationS: m.durationS > 0 ? m.durationS : Math.max(wallS, 0.001),
    status: classified.status,
    reasons: [...classified.reasons, ...m.engineErrors.filter((e) => !classified.reasons.includes(e))],
    rps: m.rps,
    requests: m.requests,
    errors: m.errors,
    non2xx: m.non2xx,
    checkFailures: m.checkFailures,
    statusCodes: m.statusCodes,
    droppedIterations: m.droppedIterations,
    ...pickDefined(m, ["bytesReceived"]),
    latencyMs: m.latencyMs,
    ...pickDefined(m, ["latencyPercentilesMs", "loadgenCpu"]),
    ...withoutUndefined({
      proxyCpu: proxyCost && proxyCost.windowS > 0 ? proxyCost.cpuS / proxyCost.windowS : undefined,
      proxyCost,
    }),
    raw: m.raw.map((r) => `raw/${r}`),
  };
}

/** A measurement for an engine run that threw: nothing measured, the error recorded. */
export function failedMeasurement(error: string): EngineMeasurement {
  return { ...emptyMeasurement(0), raw: [], exitCode: null, engineErrors: [error] };
}

export function describeRepetition(id: string, rep: number, reps: number, r: Repetition): string {
  // steal shown once it reaches a hundredth of a core (what the line prints)
  const steal =
    r.noise !== undefined && r.noise.steal >= 0.005 ? `, steal ${r.noise.steal.toFixed(2)} core` : "";
  const figures = `${Math.round(r.rps)} req/s, p99 ${r.latencyMs.p99.toFixed(2)} ms${describeCost(r.proxyCost)}${steal}`;
  const status = r.status === "ok" ? "ok" : `${r.status}: ${r.reasons.join("; ")}`;
  return `${id} rep ${rep + 1}/${reps}: ${figures}, ${status}`;
}

/** `, proxy 41.3 µs CPU/request, 12.4 MiB peak`: the proxy's cost, as far as it was measured. */
function describeCost(cost: Repetition["proxyCost"]): string {
  if (cost === undefined) return "";
  const parts: string[] = [];
  if (cost.cpuPerRequestUs !== undefined) parts.push(`${cost.cpuPerRequestUs.toFixed(1)} µs CPU/request`);
  if (cost.peakMemoryMiB !== undefined) parts.push(`${cost.peakMemoryMiB.toFixed(1)} MiB peak`);
  return parts.length === 0 ? "" : `, proxy ${parts.join(", ")}`;
}
