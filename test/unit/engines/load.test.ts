import { describe, expect, it } from "vitest";
import {
  ENGINE_FIXED_SENDER_POOL,
  ENGINE_LOAD_MODELS,
  littleLawVus,
  wholeSeconds,
} from "../../../src/engines/load.js";
import type { Load } from "../../../src/results/schema.js";

const rate = (r: number, vus?: number): Load => ({
  label: "rate",
  model: "constant-arrival-rate",
  rate: r,
  ...(vus !== undefined ? { vus } : {}),
});

describe("littleLawVus", () => {
  it("sizes the pool from rate x p99 x requests per iteration, doubled", () => {
    // 1000/s at 21 ms: 21 in flight, 42 with headroom: 32 VUs would run out.
    expect(littleLawVus(rate(1000, 32), 21, 1)).toBe(42);
    // five requests per iteration at 2 ms: 400/s x 10 ms = 4 in flight, 8 with headroom.
    expect(littleLawVus(rate(400, 4), 2, 5)).toBe(8);
  });

  it("never lowers the load's own pool, and leaves closed models alone", () => {
    expect(littleLawVus(rate(1000, 32), 0.2, 1)).toBe(32);
    expect(littleLawVus({ label: "v", model: "constant-vus", vus: 10 }, 50, 1)).toBe(10);
    expect(littleLawVus(rate(100, 5), Number.NaN, 1)).toBe(5);
  });
});

describe("engines whose arrival-rate pool the runner sizes", () => {
  it("k6 and vegeta fix their pool of senders before the run; a fixed pool only where an arrival rate runs", () => {
    expect(ENGINE_FIXED_SENDER_POOL.k6).toBe(true);
    expect(ENGINE_FIXED_SENDER_POOL.vegeta).toBe(true);
    for (const [engine, fixed] of Object.entries(ENGINE_FIXED_SENDER_POOL)) {
      const models = ENGINE_LOAD_MODELS[engine as keyof typeof ENGINE_LOAD_MODELS];
      if (fixed) expect(models, engine).toContain("constant-arrival-rate");
    }
  });
});

describe("wholeSeconds", () => {
  it("whole seconds, at least one (wrk, h2load, ab)", () => {
    expect([0.2, 1.4, 2.6].map(wholeSeconds)).toEqual([1, 1, 3]);
  });
});
