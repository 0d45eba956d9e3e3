import { describe, expect, it } from "vitest";
import { warmUpCell } from "../../../../src/measures/wall-clock/block.js";
import { measureRepetition } from "../../../../src/measures/wall-clock/repetition.js";
import type { ResourceUsage, RunningProcess } from "../../../../src/runner/runtime.js";
import { okMeasurement, repetitionContext } from "../../../support/measures/wall-clock/repetition-context.js";

// A warm-up's figures are not kept: it reads nothing of the proxy's usage, so it pays no idle
// probe; the measured repetition after it reads the proxy's cost as before (the idle probe, the
// window's start and end).

/** A live proxy whose usage readings are counted; its CPU time grows by 1 ms a reading. */
function countedProxy(): { proc: RunningProcess; readings: () => number } {
  let readings = 0;
  const usage = (): Promise<ResourceUsage> => {
    readings += 1;
    return Promise.resolve({
      source: "proc",
      cpuNs: readings * 1e6,
      peakMemoryBytes: 1 << 20,
      peakSinceReset: true,
    });
  };
  return { proc: { alive: () => true, usage } as unknown as RunningProcess, readings: () => readings };
}

const measured = okMeasurement(1, 1000);

describe("a warm-up before a measured repetition", () => {
  it("reads none of the proxy's usage; the repetition reads it at its idle probe and its window's ends", async () => {
    const { proc, readings } = countedProxy();
    const { a, block, ctx } = repetitionContext({
      proc,
      engineRun: () => measured,
      retries: 0,
      durationS: 1,
      runtime: "docker",
    });
    const warmed = { ...block, load: { ...block.load, warmupS: 1 } };
    await warmUpCell(a, warmed, ctx, { before: 0, remainingS: 2 });
    expect(readings()).toBe(0);
    expect(a.servedByProcess).toBe(1);
    const rep = await measureRepetition(a, warmed, 0, ctx);
    expect(readings()).toBe(3);
    expect(rep.proxyCost?.cpuPerRequestUs).toBeGreaterThan(0);
  });
});
