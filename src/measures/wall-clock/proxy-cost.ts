import { setTimeout as sleep } from "node:timers/promises";
import type { ProxyCost } from "../../results/schema.js";
import type { ResourceUsage, RunningProcess } from "../../runner/runtime.js";

/**
 * The proxy's own cost over a repetition: CPU time per request, requests per CPU-second and peak
 * memory. Its CPU time is read just before the engine starts and just after it exits; that span
 * holds the engine's measured window and also its start-up and exit, when the proxy is idle. The
 * idle part is taken off: the proxy's idle rate (CPU per second with no load) times the span's
 * time outside the window. The idle rate is read over the gap since this proxy's last measured
 * span ended (in a round, the other cells' repetitions), or, when that gap is shorter than
 * IDLE_MIN_S, over an IDLE_PROBE_S pause before the span.
 */

const IDLE_MIN_S = 1;
const IDLE_PROBE_S = 0.25;
const MIB = 1024 * 1024;

interface Reading {
  usage: ResourceUsage;
  /** performance.now() right after the reading, ms. */
  at: number;
}

export interface CostSpan {
  start: Reading;
  /** The proxy's CPU with no load, in cores; undefined when it could not be read. */
  idleCores?: number;
}

/** The reading that ended each proxy's last span: the start of its idle gap. */
const lastEnd = new WeakMap<RunningProcess, Reading>();

async function read(proc: RunningProcess, resetPeak: boolean): Promise<Reading | undefined> {
  const usage = await proc.usage(resetPeak).catch(() => undefined);
  return usage === undefined ? undefined : { usage, at: performance.now() };
}

function coresBetween(a: Reading, b: Reading): number | undefined {
  const s = (b.at - a.at) / 1000;
  if (s <= 0 || a.usage.source !== b.usage.source) return undefined;
  return Math.max(0, (b.usage.cpuNs - a.usage.cpuNs) / 1e9 / s);
}

/** Reads the proxy's idle rate and the start of the span; its peak memory starts over. */
export async function startCostSpan(proc: RunningProcess | undefined): Promise<CostSpan | undefined> {
  if (proc === undefined || !proc.alive()) return undefined;
  const first = await read(proc, true);
  if (first === undefined) return undefined;
  const previous = lastEnd.get(proc);
  const longGap = previous !== undefined && (first.at - previous.at) / 1000 >= IDLE_MIN_S;
  if (!longGap) await sleep(IDLE_PROBE_S * 1000);
  const start = longGap ? first : await read(proc, false);
  if (start === undefined) return undefined;
  const idleCores = coresBetween(longGap ? previous : first, start);
  return { start, ...(idleCores !== undefined ? { idleCores } : {}) };
}

/** Reads the end of the span and works out the cost of the engine's window. */
export async function finishCostSpan(
  proc: RunningProcess | undefined,
  span: CostSpan | undefined,
  window: { durationS: number; requests: number },
): Promise<ProxyCost | undefined> {
  if (proc === undefined || span === undefined) return undefined;
  const end = await read(proc, false);
  if (end === undefined || end.usage.source !== span.start.usage.source) return undefined;
  lastEnd.set(proc, end);
  return windowCost({
    cpuNs: end.usage.cpuNs - span.start.usage.cpuNs,
    spanS: (end.at - span.start.at) / 1000,
    windowS: window.durationS,
    requests: window.requests,
    ...(span.idleCores !== undefined ? { idleCores: span.idleCores } : {}),
    end: end.usage,
  });
}

/**
 * The cost of a window (pure): the span's CPU less the idle rate over the span's time outside the
 * window, per request and per CPU-second; the peak memory of the last reading. No rounding.
 */
export function windowCost(input: {
  cpuNs: number;
  spanS: number;
  windowS: number;
  requests: number;
  idleCores?: number;
  end: ResourceUsage;
}): ProxyCost {
  const windowS = input.windowS > 0 ? Math.min(input.windowS, input.spanS) : input.spanS;
  const spanCpuS = Math.max(0, input.cpuNs / 1e9);
  const idleCpuS = Math.min(spanCpuS, (input.idleCores ?? 0) * Math.max(0, input.spanS - windowS));
  const cpuS = spanCpuS - idleCpuS;
  const cost: ProxyCost = { source: input.end.source, cpuS, idleCpuS, windowS };
  if (input.requests > 0) cost.cpuPerRequestUs = (cpuS / input.requests) * 1e6;
  if (cpuS > 0) cost.requestsPerCpuS = input.requests / cpuS;
  if (input.end.peakMemoryBytes !== undefined) {
    cost.peakMemoryMiB = input.end.peakMemoryBytes / MIB;
    cost.peakSince = input.end.peakSinceReset ? "repetition" : "start";
  }
  return cost;
}
