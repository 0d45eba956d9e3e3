import { describe, expect, it } from "vitest";
import { emptyMeasurement } from "../../../../src/engines/measurement.js";
import type { EngineMeasurement } from "../../../../src/engines/types.js";
import { loadgenCrash, measureRepetition } from "../../../../src/measures/wall-clock/repetition.js";
import type { RunningProcess } from "../../../../src/runner/runtime.js";
import { okMeasurement, repetitionContext } from "../../../support/measures/wall-clock/repetition-context.js";

// The retry loop of measureRepetition with a crashing instrument: the engine is the runner's
// injected EngineApi, returning what a real k6 run returns when it is killed (exit null, no
// summary) or exits early with nothing measured. Real k6 killed mid-run: test/load/measures/wall-clock/faults.test.ts.

const measured = okMeasurement(1, 200);
const killed: EngineMeasurement = {
  ...emptyMeasurement(1),
  raw: [],
  exitCode: null,
  engineErrors: ["k6 was killed by a signal: ", "k6 wrote no summary (x.k6.json)"],
};
const earlyExit: EngineMeasurement = {
  ...emptyMeasurement(1),
  raw: [],
  exitCode: 1,
  engineErrors: ["wrk exited with code 1: unable to connect"],
};

function process(alive: boolean): RunningProcess {
  return {
    name: "proxy:nginx",
    exited: new Promise(() => undefined),
    alive: () => alive,
    stop: () => Promise.resolve(),
    usage: () => Promise.resolve(undefined),
  } as unknown as RunningProcess;
}

/** A cell and a context whose engine returns `runs` in turn; lines: what progress printed. */
function setup(runs: EngineMeasurement[], retries: number, proxyAlive = true) {
  let next = 0;
  const fake = repetitionContext({
    proc: process(proxyAlive),
    engineRun: () => runs[Math.min(next++, runs.length - 1)]!,
    retries,
    durationS: 1,
    runtime: "docker", // no noise sampling: only crashes are retried here
  });
  return { ...fake, runsUsed: () => next };
}

describe("a crashed load generator's repetition", () => {
  it("is measured again, and counts when the next try measures", async () => {
    const { a, block, ctx, lines, runsUsed } = setup([killed, measured], 2);
    const rep = await measureRepetition(a, block, 0, ctx);
    expect(runsUsed()).toBe(2);
    expect(rep.status).toBe("ok");
    expect(rep.attempts).toBe(2);
    expect(rep.rps).toBe(200);
    expect(lines.join("")).toContain(
      "light-default/nginx rep 1: the load generator crashed (k6 was killed by a signal: ); measuring it again",
    );
  });

  it("fails only when it crashes on every try, each crash named", async () => {
    const { a, block, ctx, runsUsed } = setup([killed, earlyExit, killed], 2);
    const rep = await measureRepetition(a, block, 0, ctx);
    expect(runsUsed()).toBe(3);
    expect(rep.status).toBe("failed");
    expect(rep.attempts).toBe(3);
    expect(rep.reasons).toContain("k6 was killed by a signal: ");
    expect(rep.reasons).toContain(
      "it crashed on each earlier try too: try 1: k6 was killed by a signal: ; try 2: wrk exited with code 1: unable to connect",
    );
  });

  it("is not measured again when the proxy died: the target failed, not the instrument", async () => {
    const { a, block, ctx, runsUsed } = setup([killed, measured], 2, false);
    const rep = await measureRepetition(a, block, 0, ctx);
    expect(runsUsed()).toBe(1);
    expect(rep.status).toBe("failed");
  });

  it("with --retries 0 fails at once", async () => {
    const { a, block, ctx, runsUsed } = setup([killed, measured], 0);
    expect((await measureRepetition(a, block, 0, ctx)).status).toBe("failed");
    expect(runsUsed()).toBe(1);
  });
});

describe("loadgenCrash", () => {
  const alive = { proc: process(true) };
  it.each<[string, EngineMeasurement, string | undefined]>([
    ["measured", measured, undefined],
    ["killed by a signal", killed, "k6 was killed by a signal: "],
    ["exit 1, nothing measured", earlyExit, "wrk exited with code 1: unable to connect"],
    ["exit 1 after measuring (its errors are the figures')", { ...earlyExit, requests: 10 }, undefined],
    [
      "exit 99 (k6 thresholds), nothing measured",
      { ...earlyExit, exitCode: 99, engineErrors: [] },
      undefined,
    ],
    [
      "killed, no error recorded",
      { ...killed, engineErrors: [] },
      "the load generator was killed by a signal",
    ],
  ])("%s", (_, m, expected) => {
    expect(loadgenCrash(m, alive)).toBe(expected);
  });
});
