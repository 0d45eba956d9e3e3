import { processCpuSeconds } from "../util/processes.js";

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

/** Samples a process's CPU time every `intervalMs` until stopped. */
export class CpuSampler {
  private readonly samples: CpuSample[] = [];
  private readonly timer: NodeJS.Timeout;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly pid: number,
    intervalMs = 100,
  ) {
    this.timer = setInterval(() => {
      this.pending = this.sample();
    }, intervalMs);
    this.pending = this.sample();
  }

  private async sample(): Promise<void> {
    const t = performance.now() / 1000;
    const cpuS = await processCpuSeconds(this.pid);
    if (cpuS !== undefined) this.samples.push({ t, cpuS });
  }

  /** Stops sampling; returns the cores used (see `coresUsed`). */
  async stop(): Promise<number | undefined> {
    clearInterval(this.timer);
    await this.pending;
    return coresUsed(this.samples);
  }
}
