import { describe, expect, it } from "vitest";
import { noiseBetween, noiseReason, parsePidStat, parseProcStat, treeTicks } from "../../src/runner/noise.js";

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

  it("reads ppid and CPU ticks of a process, even with spaces and parentheses in its name", () => {
    const line = "4242 (k6 (worker) x) S 4000 4242 4242 0 -1 4194560 10 0 0 0 70 30 5 5 20 0 12 0";
    expect(parsePidStat(line)).toEqual({ ppid: 4000, ticks: 110 });
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
      "0.40 core used by other processes and 0.10 core stolen by the hypervisor on the benchmark's cores (limit 0.05)",
    );
  });
});
