import { describe, expect, it } from "vitest";
import {
  noiseBetween,
  noiseReason,
  parseProcStat,
  type NoiseSnapshot,
} from "../../../../src/measures/wall-clock/noise.js";
import { describeRepetition, measureRepetition } from "../../../../src/measures/wall-clock/repetition.js";
import type { RunningProcess } from "../../../../src/runner/runtime.js";
import { okMeasurement, repetitionContext } from "../../../support/measures/wall-clock/repetition-context.js";

// Steal, named and not fatal: /proc/stat texts as the kernel writes them, read by the real parser
// and turned into the noise of a repetition by the real functions; measureRepetition's retry loop
// fed those snapshots in turn (its noise sampler is the runner's injected dependency).

/** A /proc/stat text with these per-core user, system and steal ticks (the rest idle). */
function procStat(cores: Array<{ user: number; system: number; steal: number }>): string {
  const lines = cores.map((c, i) => `cpu${i} ${c.user} 0 ${c.system} 90000 12 0 40 ${c.steal} 0 0`);
  return ["cpu  1 0 1 1 0 0 0 0 0 0", ...lines, "intr 1234", "ctxt 5678"].join("\n");
}

/** A snapshot at `seconds`, of /proc/stat text and this run's own ticks. */
function snapshot(seconds: number, text: string, ownTicks: number): NoiseSnapshot {
  return { at: seconds * 1000, cores: parseProcStat(text), ownTicks };
}

const QUIET = procStat([
  { user: 1000, system: 500, steal: 10 },
  { user: 2000, system: 800, steal: 20 },
]);
/** 2 s later: 300 ticks of work on each core, all of it this run's (600 own ticks), and 40 ticks stolen on each: 0.4 core. */
const STOLEN = procStat([
  { user: 1200, system: 600, steal: 50 },
  { user: 2200, system: 900, steal: 60 },
]);
/** 2 s later: as STOLEN, plus 60 ticks of another process on core 1 (0.3 core) and no steal. */
const BUSY = procStat([
  { user: 1200, system: 600, steal: 10 },
  { user: 2260, system: 900, steal: 20 },
]);

describe("classifying a repetition's interference from /proc/stat samples", () => {
  it("steal alone: recorded, not noisy", () => {
    const noise = noiseBetween(snapshot(0, QUIET, 0), snapshot(2, STOLEN, 600), [0, 1]);
    expect(noise).toEqual({ otherCpu: 0, steal: 0.4 });
    expect(noiseReason(noise, 0.05)).toBeUndefined();
  });

  it("other processes' CPU above the limit: noisy, with the steal beside it named", () => {
    const noise = noiseBetween(snapshot(0, QUIET, 0), snapshot(2, BUSY, 600), [0, 1]);
    expect(noise).toEqual({ otherCpu: 0.3, steal: 0 });
    expect(noiseReason(noise, 0.05)).toBe(
      "0.30 core used by other processes on the benchmark's cores (limit 0.05)",
    );
    expect(noiseReason({ otherCpu: 0.3, steal: 0.4 }, 0.05)).toBe(
      "0.30 core used by other processes on the benchmark's cores (limit 0.05; besides, 0.40 core stolen by the hypervisor)",
    );
  });

  it("steal far above the limit with other CPU under it: not noisy", () => {
    expect(noiseReason({ otherCpu: 0.04, steal: 0.54 }, 0.05)).toBeUndefined();
  });
});

const measured = okMeasurement(2, 1000);

/**
 * A native cell whose every attempt is one engine run between two of `samples` (a /proc/stat text
 * 2 s after QUIET); `lines`: what progress printed.
 */
function setup(samples: string[], retries = 2) {
  let attempt = 0;
  const snapshots = samples.flatMap((text) => [snapshot(0, QUIET, 0), snapshot(2, text, 600)]);
  let taken = 0;
  const proc = { alive: () => true, usage: () => Promise.resolve(undefined) } as unknown as RunningProcess;
  const fake = repetitionContext({
    proc,
    engineRun: () => measured,
    retries,
    durationS: 2,
    runtime: "native",
    noiseSnapshot: () => {
      attempt = Math.floor(taken / 2) + 1;
      return Promise.resolve(snapshots[Math.min(taken++, snapshots.length - 1)]);
    },
  });
  return { ...fake, attempts: () => attempt };
}

describe("a repetition with steal", () => {
  it("is kept at its first try, its steal recorded and printed", async () => {
    const { a, block, ctx, lines, attempts } = setup([STOLEN]);
    const rep = await measureRepetition(a, block, 0, ctx);
    expect(attempts()).toBe(1);
    expect(rep).toMatchObject({ status: "ok", attempts: 1, noise: { otherCpu: 0, steal: 0.4 }, reasons: [] });
    expect(a.cell.redone).toBeUndefined();
    expect(lines.join("")).not.toContain("measuring it again");
    expect(describeRepetition(a.cell.id, 0, 5, rep)).toBe(
      "light-default/nginx rep 1/5: 500 req/s, p99 4.00 ms, steal 0.40 core, ok",
    );
  });

  it("with other processes' CPU is measured again, and kept when the next try is quiet", async () => {
    const { a, block, ctx, lines } = setup([BUSY, STOLEN]);
    const rep = await measureRepetition(a, block, 0, ctx);
    expect(rep).toMatchObject({ status: "ok", attempts: 2, noise: { otherCpu: 0, steal: 0.4 } });
    expect(a.cell.redone).toEqual({ noisy: 1, dropped: 0 });
    expect(lines.join("")).toContain(
      "light-default/nginx rep 1: noisy: 0.30 core used by other processes on the benchmark's cores (limit 0.05); measuring it again",
    );
  });

  it("with other processes' CPU on every try is noisy after the retries", async () => {
    const { a, block, ctx } = setup([BUSY, BUSY, BUSY]);
    const rep = await measureRepetition(a, block, 0, ctx);
    expect(rep.status).toBe("noisy");
    expect(rep.attempts).toBe(3);
    expect(rep.reasons).toContain(
      "0.30 core used by other processes on the benchmark's cores (limit 0.05), still after 2 more tries",
    );
  });
});
