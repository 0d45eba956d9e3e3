import { describe, expect, it } from "vitest";
import { littleLawVus } from "../../../src/engines/load.js";
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
