import { describe, expect, it } from "vitest";
import {
  noiseBetween,
  noiseReason,
  noiseSnapshot,
  parseProcStat,
  treeTicks,
} from "../../../../src/measures/wall-clock/noise.js";

const PROC_STAT = [
  "cpu  300 0 200 9000 0 10 20 5 0 0",
  "cpu0 100 0 100 4500 0 5 10 0 0 0",
  "cpu1 200 0 100 4500 0 5 10 5 0 0",
  "intr 12345",
].join("\n");

describe("noise on the pinned cores", () => {
  it("reads busy (user+nice+system) and steal per CPU, leaving interrupts out", () => {
    const cores = parseProcStat(PROC_STAT);
    expect(cores.get(0)).toEqual({ busy: 200, steal: 0 });
    expect(cores.get(1)).toEqual({ busy: 300, steal: 5 });
    expect(cores.has(2)).toBe(false);
  });

  it("sums a process tree, and only that tree", () => {
    const procs = new Map([
      [10, { ppid: 1, ticks: 5 }],
      [11, { ppid: 10, ticks: 7 }],
      [12, { ppid: 11, ticks: 3 }],
      [20, { ppid: 1, ticks: 100 }],
    ]);
    expect(treeTicks(10, procs)).toBe(15);
    expect(treeTicks(20, procs)).toBe(100);
  });

  it("is other processes' CPU on the given cores over the interval, in cores", () => {
    const before = {
      at: 0,
      cores: new Map([
        [0, { busy: 0, steal: 0 }],
        [1, { busy: 0, steal: 0 }],
      ]),
      ownTicks: 0,
    };
    // 2 s: core 1 busy 150 ticks (1.5 s), of which 100 ticks are ours; core 0 busy 400 (not pinned).
    const after = {
      at: 2000,
      cores: new Map([
        [0, { busy: 400, steal: 0 }],
        [1, { busy: 150, steal: 20 }],
      ]),
      ownTicks: 100,
    };
    expect(noiseBetween(before, after, [1])).toEqual({ otherCpu: 0.25, steal: 0.1 });
    expect(noiseBetween(before, after, [1, 1])).toEqual({ otherCpu: 0.25, steal: 0.1 });
  });

  it("names what made a repetition noisy, and stays quiet under the limit", () => {
    expect(noiseReason({ otherCpu: 0.02, steal: 0.01 }, 0.05)).toBeUndefined();
    expect(noiseReason(undefined, 0.05)).toBeUndefined();
    expect(noiseReason({ otherCpu: 0.4, steal: 0.1 }, 0.05)).toBe(
      "0.40 core used by other processes on the benchmark's cores (limit 0.05; besides, 0.10 core stolen by the hypervisor)",
    );
  });

  it("steal alone is never noise, however large (test/unit/measures/wall-clock/steal.test.ts)", () => {
    expect(noiseReason({ otherCpu: 0.02, steal: 0.04 }, 0.05)).toBeUndefined();
    expect(noiseReason({ otherCpu: 0, steal: 0.54 }, 0.05)).toBeUndefined();
  });
});

describe("noise under the docker runtime: this run's containers are its own work", () => {
  const cores = (busy: number) => new Map([[2, { busy, steal: 0 }]]);

  it("subtracts the CPU time of this run's containers (their cgroups), not descendants of this process", () => {
    // 2 s on core 2: 300 ticks busy; 20 ticks ours (the load generator), 2.4 s the proxy's container.
    const before = { at: 0, cores: cores(0), ownTicks: 0, outsideNs: new Map([["proxy", 5e9]]) };
    const after = { at: 2000, cores: cores(300), ownTicks: 20, outsideNs: new Map([["proxy", 7.4e9]]) };
    expect(noiseBetween(before, after, [2])).toEqual({ otherCpu: 0.2, steal: 0 });
    // Without the container's share, its work would read as another process's: 1.4 cores.
    const blind = { ...after, outsideNs: new Map([["proxy", 5e9]]) };
    expect(noiseBetween(before, blind, [2]).otherCpu).toBe(1.4);
  });

  it("a container only one snapshot has (started or removed between them) counts for nothing", () => {
    const before = { at: 0, cores: cores(0), ownTicks: 0, outsideNs: new Map([["gone", 1e9]]) };
    const after = { at: 1000, cores: cores(50), ownTicks: 0, outsideNs: new Map([["new", 9e9]]) };
    expect(noiseBetween(before, after, [2]).otherCpu).toBe(0.5);
  });

  it("is not measured when a container's CPU cannot be read (the engine on another kernel)", async () => {
    expect(await noiseSnapshot(() => Promise.resolve(undefined))).toBeUndefined();
    const snapshot = await noiseSnapshot(() => Promise.resolve(new Map([["proxy", 42]])));
    expect(snapshot?.outsideNs).toEqual(new Map([["proxy", 42]]));
  });
});
