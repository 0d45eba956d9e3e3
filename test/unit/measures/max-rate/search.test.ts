import { describe, expect, it } from "vitest";
import type { EngineMeasurement } from "../../../../src/engines/types.js";
import {
  DEFAULT_RATE_LIMITS,
  formatMaxRate,
  judgeRateStep,
  rateStepLoad,
  searchMaxRate,
  type MaxRateOptions,
  type RateVerdict,
} from "../../../../src/measures/max-rate/search.js";

/** A target that holds every rate up to `limit` and no rate above it. */
function fakeTarget(limit: number) {
  const asked: number[] = [];
  const measure = (rate: number): Promise<RateVerdict> => {
    asked.push(rate);
    return Promise.resolve(
      rate <= limit
        ? { ok: true, p99Ms: 5, reasons: [] }
        : { ok: false, p99Ms: 900, reasons: ["p99 900 ms > 50 ms"] },
    );
  };
  return { measure, asked };
}

describe("searchMaxRate", () => {
  const cases: Array<{ name: string; limit: number; options?: Partial<MaxRateOptions>; converged: boolean }> =
    [
      { name: "limit between ramp steps", limit: 800, converged: true },
      { name: "limit on a ramp step", limit: 1600, converged: true },
      {
        name: "start above the limit: ramp down first",
        limit: 130,
        options: { startRate: 1000 },
        converged: true,
      },
      {
        name: "high limit, fine precision",
        limit: 47_000,
        options: { precision: 0.01, maxSteps: 30 },
        converged: true,
      },
      { name: "step budget too small", limit: 800, options: { maxSteps: 5 }, converged: false },
    ];
  for (const c of cases) {
    it(c.name, async () => {
      const target = fakeTarget(c.limit);
      const options = { ...c.options };
      const result = await searchMaxRate(target.measure, options);
      const precision = options.precision ?? 0.05;
      expect(result.converged).toBe(c.converged);
      expect(result.steps.map((s) => s.rate)).toEqual(target.asked);
      expect(result.steps.length).toBeLessThanOrEqual(options.maxSteps ?? 14);
      // The answer is a rate that held, at or below the limit...
      expect(result.rate).toBeDefined();
      expect(result.rate ?? Infinity).toBeLessThanOrEqual(c.limit);
      expect(result.steps.find((s) => s.rate === result.rate)?.ok).toBe(true);
      // ...and, once converged, within the precision of the limit.
      if (c.converged) {
        expect(((result.failedRate ?? 0) - (result.rate ?? 0)) / (result.rate ?? 1)).toBeLessThanOrEqual(
          precision,
        );
        expect(result.rate ?? 0).toBeGreaterThanOrEqual(c.limit * (1 - precision));
      }
    });
  }

  it("ramps exponentially, then bisects", async () => {
    const result = await searchMaxRate(fakeTarget(800).measure);
    expect(result.steps.map((s) => [s.phase, s.rate])).toEqual([
      ["ramp", 100],
      ["ramp", 200],
      ["ramp", 400],
      ["ramp", 800],
      ["ramp", 1600],
      ["bisect", 1200],
      ["bisect", 1000],
      ["bisect", 900],
      ["bisect", 850],
      ["bisect", 825],
    ]);
    expect(result).toMatchObject({ rate: 800, failedRate: 825, converged: true });
  });

  it("no rate holds", async () => {
    const result = await searchMaxRate(fakeTarget(0).measure, { startRate: 8, minRate: 1 });
    expect(result.rate).toBeUndefined();
    expect(result.converged).toBe(false);
    expect(result.stoppedBecause).toMatch(/no rate down to 1\/s held/);
  });

  it("the maximum rate asked for holds", async () => {
    const result = await searchMaxRate(fakeTarget(1e9).measure, { startRate: 1000, maxRate: 5000 });
    expect(result).toMatchObject({ rate: 5000, converged: true });
    expect(result.steps.map((s) => s.rate)).toEqual([1000, 2000, 4000, 5000]);
  });

  it("reports every step as it is measured", async () => {
    const seen: number[] = [];
    await searchMaxRate(fakeTarget(300).measure, {}, (s) => seen.push(s.rate));
    expect(seen).toEqual([100, 200, 400, 300, 350, 325, 313]);
  });

  it("a target faster than the load generator: the answer is a floor, and says so", async () => {
    const measure = (rate: number): Promise<RateVerdict> =>
      Promise.resolve(
        rate <= 3000
          ? { ok: true, p99Ms: 2, reasons: [] }
          : {
              ok: false,
              p99Ms: 2,
              reasons: ["the load generator dropped 40 iterations"],
              loadgenBound: true,
            },
      );
    const result = await searchMaxRate(measure, { startRate: 1000 });
    expect(result).toMatchObject({ rate: 3000, loadgenLimited: true, converged: true });
    expect(formatMaxRate(result).split("\n")[0]).toMatch(
      /^maximum sustainable rate: at least 3000 req\/s: the load generator was the limit above it, not the target/,
    );
  });

  it("formats the steps", async () => {
    const text = formatMaxRate(await searchMaxRate(fakeTarget(300).measure));
    expect(text.split("\n")[0]).toBe(
      "maximum sustainable rate: 300 req/s (within 5%: 300/s held, 313/s did not)",
    );
    expect(text).toContain("did not hold  p99 900 ms  (p99 900 ms > 50 ms)");
  });
});

function measurement(over: Partial<EngineMeasurement>): EngineMeasurement {
  return {
    durationS: 5,
    rps: 1000,
    requests: 5000,
    errors: 0,
    non2xx: 0,
    checkFailures: 0,
    statusCodes: { "200": 5000 },
    droppedIterations: 0,
    latencyMs: { min: 0.2, mean: 1, p50: 1, p90: 2, p95: 3, p99: 4, max: 9 },
    loadgenCpu: 0.3,
    raw: [],
    exitCode: 0,
    engineErrors: [],
    ...over,
  };
}

describe("judgeRateStep", () => {
  const ctx = { limits: DEFAULT_RATE_LIMITS, loadgenCores: 1, requestsPerIteration: 1 };
  const cases: Array<{ name: string; m: Partial<EngineMeasurement>; rate?: number; reason?: RegExp }> = [
    { name: "held", m: {} },
    {
      name: "p99 over the limit",
      m: { latencyMs: { min: 0, mean: 9, p50: 9, p90: 20, p95: 40, p99: 51, max: 90 } },
      reason: /p99 51 ms > 50 ms/,
    },
    {
      name: "a non-2xx response",
      m: { non2xx: 1 },
      reason: /1 failed requests \(0 transport errors, 1 non-2xx/,
    },
    { name: "served less than asked", m: { rps: 900 }, reason: /served 900 req\/s of the 1000 asked for/ },
    { name: "dropped iterations", m: { droppedIterations: 3 }, reason: /dropped 3 iterations/ },
    {
      name: "served less than asked and dropped iterations: the load generator's failure voids the step",
      m: { rps: 900, droppedIterations: 3 },
      reason: /served 900 req\/s.*dropped 3 iterations/,
    },
    {
      name: "p99 over while the load generator was saturated: says nothing about the target",
      m: {
        loadgenCpu: 0.98,
        latencyMs: { min: 0, mean: 30, p50: 20, p90: 60, p95: 90, p99: 120, max: 200 },
      },
      reason: /p99 120 ms > 50 ms; the load generator used 0\.98 of its 1 core/,
    },
    { name: "load generator saturated", m: { loadgenCpu: 0.95 }, reason: /used 0\.95 of its 1 core/ },
    {
      name: "load generator's core busy with other work, every bound met: held",
      m: { loadgenCpu: 0.2, loadgenCoresBusy: 0.99 },
    },
    {
      name: "load generator's core busy with other work and p99 over: did not hold, noisy",
      m: {
        loadgenCpu: 0.2,
        loadgenCoresBusy: 0.99,
        latencyMs: { min: 0, mean: 9, p50: 9, p90: 20, p95: 40, p99: 70, max: 90 },
      },
      reason:
        /p99 70 ms > 50 ms; the load generator's core\(s\) were 99% busy \(0\.20 of it the load generator's own\)/,
    },
    { name: "engine error", m: { engineErrors: ["k6 crashed"] }, reason: /k6 crashed/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const v = judgeRateStep(c.rate ?? 1000, measurement(c.m), ctx);
      expect(v.ok).toBe(c.reason === undefined);
      const loadgen = [
        "dropped iterations",
        "served less than asked and dropped iterations: the load generator's failure voids the step",
        "p99 over while the load generator was saturated: says nothing about the target",
        "load generator saturated",
      ];
      expect(v.loadgenBound === true).toBe(loadgen.includes(c.name));
      if (c.reason) expect(v.reasons.join("; ")).toMatch(c.reason);
    });
  }
  it("compares requests, not iterations, with the throughput", () => {
    const v = judgeRateStep(200, measurement({ rps: 1000 }), { ...ctx, requestsPerIteration: 5 });
    expect(v.ok).toBe(true);
  });
});

describe("rateStepLoad", () => {
  it("is an open-model load at the rate", () => {
    expect(rateStepLoad(800, 4)).toEqual({
      label: "rate-800",
      model: "constant-arrival-rate",
      rate: 800,
      durationS: 4,
      vus: 800,
    });
  });
});
