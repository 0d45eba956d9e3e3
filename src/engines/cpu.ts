import { readFile } from "node:fs/promises";
import { processCpuSeconds, TICKS_PER_SECOND } from "../util/proc-stat.js";
import { withoutUndefined } from "../util/objects.js";

/** CPU time used by a process so far, read at wall time `t` (both in seconds). */
export interface CpuSample {
  t: number;
  cpuS: number;
}

/**
 * Pure: cores used over the middle of a run, from periodic samples. The first and last tenth
 * of the sampled span are left out so that start-up (k6 compiles the script for every VU) and
 * the summary at the end do not dilute or inflate the figure. Undefined with too few samples.
 */
export function coresUsed(samples: readonly CpuSample[]): number | undefined {
  if (samples.length < 2) return undefined;
  const first = samples[0]!;
  const last = samples[samples.length - 1]!;
  const span = last.t - first.t;
  if (span <= 0) return undefined;
  const inner = samples.filter((s) => s.t >= first.t + span * 0.1 && s.t <= last.t - span * 0.1);
  const window = inner.length >= 2 ? inner : samples;
  const a = window[0]!;
  const b = window[window.length - 1]!;
  return b.t > a.t ? Math.max(0, (b.cpuS - a.cpuS) / (b.t - a.t)) : undefined;
}

/**
 * Pure: seconds the given cores spent busy (anything but idle and iowait), from /proc/stat
 * text. Undefined when a core is missing.
 */
export function coresBusySeconds(procStat: string, cores: readonly number[]): number | undefined {
  let busy = 0;
  for (const core of cores) {
    const line = procStat.split("\n").find((l) => l.startsWith(`cpu${core} `));
    if (!line) return undefined;
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0); // guest time is already in user
    busy += total - (ticks[3] ?? 0) - (ticks[4] ?? 0);
  }
  return busy / TICKS_PER_SECOND;
}

/** Samples a process's CPU time, and how busy its cores are, every `intervalMs` until stopped. */
export class CpuSampler {
  private readonly samples: CpuSample[] = [];
  private readonly coreSamples: CpuSample[] = [];
  private readonly timer: NodeJS.Timeout;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly pid: number,
    /** Cores the process is pinned to: their busy time (by any process) is sampled too. */
    private readonly cores: readonly number[] = [],
    intervalMs = 100,
  ) {
    this.timer = setInterval(() => {
      this.pending = this.sample();
    }, intervalMs);
    this.pending = this.sample();
  }

  private async sample(): Promise<void> {
    const t = performance.now() / 1000;
    const [cpuS, stat] = await Promise.all([
      processCpuSeconds(this.pid),
      this.cores.length > 0 ? readFile("/proc/stat", "utf8").catch(() => undefined) : undefined,
    ]);
    if (cpuS === undefined) return; // exited: the core figures would outlast the process
    this.samples.push({ t, cpuS });
    const busy = stat === undefined ? undefined : coresBusySeconds(stat, this.cores);
    if (busy !== undefined) this.coreSamples.push({ t, cpuS: busy });
  }

  /**
   * Stops sampling; returns the cores the process used and how busy its cores were, both in
   * cores over the middle of the run (see `coresUsed`).
   */
  async stop(): Promise<{ process?: number; coresBusy?: number }> {
    clearInterval(this.timer);
    await this.pending;
    return withoutUndefined({ process: coresUsed(this.samples), coresBusy: coresUsed(this.coreSamples) });
  }
}
