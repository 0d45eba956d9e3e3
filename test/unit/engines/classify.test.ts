import { describe, expect, it } from "vitest";
import { classifyRepetition } from "../../../src/engines/classify.js";
import type { EngineMeasurement } from "../../../src/engines/types.js";
import { escapeMarkdown } from "../../../src/render/escape.js";

function measurement(overrides: Partial<EngineMeasurement> = {}): EngineMeasurement {
  return {
    durationS: 5,
    rps: 1000,
    requests: 5000,
    errors: 0,
    non2xx: 0,
    checkFailures: 0,
    statusCodes: { "200": 5000 },
    droppedIterations: 0,
    latencyMs: { min: 0.1, mean: 1, p50: 0.9, p90: 2, p95: 3, p99: 5, max: 9 },
    loadgenCpu: 0.5,
    raw: ["r.k6.json"],
    exitCode: 0,
    engineErrors: [],
    ...overrides,
  };
}

describe("classifyRepetition", () => {
  const cases: {
    name: string;
    m: Partial<EngineMeasurement>;
    cores?: number;
    status: string;
    reasons: string[];
  }[] = [
    { name: "a clean run", m: {}, status: "ok", reasons: [] },
    {
      name: "404s: invalid, with the codes",
      m: { non2xx: 4990, statusCodes: { "200": 10, "404": 4900, "502": 90 }, requests: 5000 },
      status: "invalid",
      reasons: ["4990 non-2xx responses of 5000 (404: 4900, 502: 90)"],
    },
    {
      name: "one non-2xx without per-code counts (wrk)",
      m: { non2xx: 1, statusCodes: {} },
      status: "invalid",
      reasons: ["1 non-2xx response of 5000"],
    },
    {
      name: "codes outside k6's known list are counted per class",
      m: { non2xx: 5, statusCodes: { "200": 4995, "4xx": 3, "404": 2 } },
      status: "invalid",
      reasons: ["5 non-2xx responses of 5000 (404: 2, 4xx: 3)"],
    },
    {
      name: "failed checks: invalid",
      m: { checkFailures: 3 },
      status: "invalid",
      reasons: ["3 2xx responses failed the scenario's check"],
    },
    {
      name: "transport errors: invalid",
      m: { errors: 12, statusCodes: { "0": 12, "200": 4988 } },
      status: "invalid",
      reasons: ["12 transport errors (connection refused, reset or timed out)"],
    },
    {
      name: "k6 exit 107: failed, with the engine's error",
      m: { exitCode: 107, engineErrors: ["the k6 script threw an exception (exit 107): boom"] },
      status: "failed",
      reasons: ["the k6 script threw an exception (exit 107): boom"],
    },
    {
      name: "a non-zero exit without an engine error still fails",
      m: { exitCode: 1 },
      status: "failed",
      reasons: ["the load generator exited with code 1"],
    },
    {
      name: "killed by a signal",
      m: { exitCode: null },
      status: "failed",
      reasons: ["the load generator was killed by a signal"],
    },
    { name: "k6 exit 99 (thresholds) is not a failure", m: { exitCode: 99 }, status: "ok", reasons: [] },
    {
      name: "zero requests: failed",
      m: { requests: 0, rps: 0, statusCodes: {} },
      status: "failed",
      reasons: ["no request completed"],
    },
    {
      name: "refused everywhere: failed wins over invalid, both reasons kept",
      m: {
        exitCode: 108,
        engineErrors: ["the k6 script aborted the test (exit 108)"],
        requests: 0,
        errors: 0,
      },
      status: "failed",
      reasons: ["the k6 script aborted the test (exit 108)", "no request completed"],
    },
    {
      name: "load generator saturated on one core",
      m: { loadgenCpu: 0.95 },
      status: "loadgen-bound",
      reasons: [
        "the load generator used 0.95 of its 1 core (90% or more): the figures are its limit, not the target's",
      ],
    },
    {
      name: "exactly 90% of two cores",
      m: { loadgenCpu: 1.8 },
      cores: 2,
      status: "loadgen-bound",
      reasons: [
        "the load generator used 1.80 of its 2 cores (90% or more): the figures are its limit, not the target's",
      ],
    },
    { name: "0.95 of two cores is fine", m: { loadgenCpu: 0.95 }, cores: 2, status: "ok", reasons: [] },
    { name: "no CPU figure: not judged on CPU", m: { loadgenCpu: undefined }, status: "ok", reasons: [] },
    {
      name: "its core busy with other processes",
      m: { loadgenCpu: 0.34, loadgenCoresBusy: 0.97 },
      status: "loadgen-bound",
      reasons: [
        "the load generator's core was 97% busy, 0.34 core by the load generator's process, the rest by the kernel's network work or other processes: the figures are its limit, not the target's",
      ],
    },
    {
      name: "two cores busy",
      m: { loadgenCpu: 1.1, loadgenCoresBusy: 1.9 },
      cores: 2,
      status: "loadgen-bound",
      reasons: [
        "the load generator's 2 cores were 95% busy, 1.10 core by the load generator's process, the rest by the kernel's network work or other processes: the figures are its limit, not the target's",
      ],
    },
    { name: "its core half busy", m: { loadgenCpu: 0.34, loadgenCoresBusy: 0.5 }, status: "ok", reasons: [] },
    {
      name: "saturated by itself: one reason, not two",
      m: { loadgenCpu: 0.95, loadgenCoresBusy: 1 },
      status: "loadgen-bound",
      reasons: [
        "the load generator used 0.95 of its 1 core (90% or more): the figures are its limit, not the target's",
      ],
    },
    {
      name: "dropped iterations",
      m: { droppedIterations: 1 },
      status: "loadgen-bound",
      reasons: ["1 iteration dropped: the load generator could not hold the arrival rate"],
    },
    {
      name: "invalid and saturated: invalid first",
      m: { non2xx: 2, statusCodes: { "200": 4998, "503": 2 }, loadgenCpu: 1, droppedIterations: 5 },
      status: "invalid",
      reasons: [
        "2 non-2xx responses of 5000 (503: 2)",
        "the load generator used 1.00 of its 1 core (90% or more): the figures are its limit, not the target's",
        "5 iterations dropped: the load generator could not hold the arrival rate",
      ],
    },
  ];
  it.each(cases)("$name", ({ m, cores, status, reasons }) => {
    expect(classifyRepetition(measurement(m), { loadgenCores: cores ?? 1 })).toEqual({ status, reasons });
  });
});

describe("reasons read the same in a terminal and in markdown", () => {
  it("a loadgen-bound reason has no character the reports turn into an entity", () => {
    const { reasons } = classifyRepetition(measurement({ loadgenCpu: 0.95, loadgenCoresBusy: 1 }), {
      loadgenCores: 1,
    });
    expect(reasons).toHaveLength(1);
    for (const r of reasons) expect(escapeMarkdown(r)).not.toMatch(/&[a-z#0-9]+;/);
  });
});
