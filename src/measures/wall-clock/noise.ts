import { readFile } from "node:fs/promises";
import { readProcesses, TICKS_PER_SECOND, type ProcStat } from "../../util/proc-stat.js";

/**
 * Interference on the benchmark's pinned cores during one repetition (Linux /proc):
 * - otherCpu: busy time (user, nice, system) of those cores minus the CPU time of this run's own
 *   work, in cores: this process and all its descendants (the load generator, native proxies,
 *   the upstream), and this run's containers, read from their cgroups (the docker runtime's
 *   proxies are the engine's children, not ours);
 * - steal: time the hypervisor gave those cores' vCPUs to something else, in cores: recorded,
 *   never noise by itself (noiseReason).
 * Interrupt and softirq time is left out on both sides, and so are kernel threads (children
 * of kthreadd, pid 2): the kernel's loopback work for the benchmark's own requests is
 * accounted there (softirq, or ksoftirqd's system time) and is not interference.
 * The container engine's own processes (dockerd, the containerd shims copying a container's
 * output) are not this run's: their time on the pinned cores counts as other work. Where a
 * container's CPU cannot be read (an engine on another kernel), noise is not measured.
 */

const KTHREADD = 2; // parent of every kernel thread

export interface CoreTicks {
  busy: number;
  steal: number;
}

export interface NoiseSnapshot {
  at: number;
  cores: Map<number, CoreTicks>;
  ownTicks: number;
  /** CPU time (ns) of this run's processes outside its process tree (containers), by name. */
  outsideNs?: ReadonlyMap<string, number>;
}

/**
 * The CPU time (ns) of what this run started outside its own process tree, by name (the docker
 * runtime's containers); undefined when one cannot be read.
 */
export type OutsideCpu = () => Promise<ReadonlyMap<string, number> | undefined>;

const NS_PER_TICK = 1e9 / TICKS_PER_SECOND;

export interface Noise {
  otherCpu: number;
  steal: number;
}

/** Per-CPU busy and steal ticks from /proc/stat text. Pure. */
export function parseProcStat(text: string): Map<number, CoreTicks> {
  const out = new Map<number, CoreTicks>();
  for (const line of text.split("\n")) {
    const m = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const f = m[2]!.trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal guest guest_nice
    out.set(Number(m[1]), { busy: (f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0), steal: f[7] ?? 0 });
  }
  return out;
}

/** CPU ticks of a process and every live descendant (reaped children are in cutime/cstime). */
export function treeTicks(
  root: number,
  procs: ReadonlyMap<number, Pick<ProcStat, "ppid" | "ticks">>,
): number {
  const children = new Map<number, number[]>();
  for (const [pid, p] of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), pid]);
  const ticks = (pid: number): number =>
    (procs.get(pid)?.ticks ?? 0) + (children.get(pid) ?? []).reduce((sum, child) => sum + ticks(child), 0);
  return ticks(root);
}

/**
 * A snapshot to take before a repetition; undefined where /proc/stat, or the CPU time of one of
 * `outside` (this run's containers), cannot be read.
 */
export async function noiseSnapshot(outside?: OutsideCpu): Promise<NoiseSnapshot | undefined> {
  const stat = await readFile("/proc/stat", "utf8").catch(() => undefined);
  if (stat === undefined) return undefined;
  const outsideNs = outside ? await outside() : undefined;
  if (outside && outsideNs === undefined) return undefined;
  const processes = new Map((await readProcesses()).map((p) => [p.pid, p]));
  const ownTicks = treeTicks(process.pid, processes) + treeTicks(KTHREADD, processes);
  return { at: performance.now(), cores: parseProcStat(stat), ownTicks, ...(outsideNs ? { outsideNs } : {}) };
}

/** Ticks of this run's outside processes between two snapshots: those both snapshots have. */
function outsideTicks(before: NoiseSnapshot, after: NoiseSnapshot): number {
  let ns = 0;
  for (const [name, end] of after.outsideNs ?? []) {
    const start = before.outsideNs?.get(name);
    if (start !== undefined) ns += end - start;
  }
  return ns / NS_PER_TICK;
}

/** Interference between two snapshots on the given cores. Pure. */
export function noiseBetween(before: NoiseSnapshot, after: NoiseSnapshot, cores: readonly number[]): Noise {
  const seconds = Math.max(1e-3, (after.at - before.at) / 1000);
  let busy = 0;
  let steal = 0;
  for (const core of new Set(cores)) {
    const a = after.cores.get(core);
    const b = before.cores.get(core);
    if (!a || !b) continue;
    busy += a.busy - b.busy;
    steal += a.steal - b.steal;
  }
  const own = after.ownTicks - before.ownTicks + outsideTicks(before, after);
  const perSecond = (ticks: number) => Math.round((ticks / TICKS_PER_SECOND / seconds) * 1000) / 1000;
  return { otherCpu: Math.max(0, perSecond(busy - own)), steal: Math.max(0, perSecond(steal)) };
}

/**
 * Why a repetition is noisy, or undefined when other processes' CPU on its cores stayed under the
 * limit (cores). Steal is named beside it but never makes a repetition noisy: measuring again does
 * not take it away on a busy host, and it is left out where a figure holds it (src/stats/steal.ts).
 */
export function noiseReason(noise: Noise | undefined, limit: number): string | undefined {
  if (noise === undefined || noise.otherCpu <= limit) return undefined;
  const steal =
    noise.steal >= 0.005 ? `; besides, ${noise.steal.toFixed(2)} core stolen by the hypervisor` : "";
  return `${noise.otherCpu.toFixed(2)} core used by other processes on the benchmark's cores (limit ${limit.toFixed(2)}${steal})`;
}
