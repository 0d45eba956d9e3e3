import { describe, expect, it } from "vitest";
import { historyP, runsNeededFor } from "../../../src/stats/history.js";
import { mulberry32 } from "../../../src/runner/rounds.js";

describe("historyP", () => {
  const past = [
    1.0, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1.0, 1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.02, 0.98,
    1.0,
  ];

  it("a head run far outside 19 runs gets the smallest p, 1/20", () => {
    expect(historyP(1.3, past)).toBeCloseTo(1 / 20, 12);
    expect(historyP(0.7, past)).toBeCloseTo(1 / 20, 12);
  });

  it("a head run among them gets a large p", () => {
    expect(historyP(1.0, past)).toBe(1);
    expect(historyP(1.015, past)).toBeGreaterThan(0.3);
  });

  it("is valid: under no change P(p <= u) <= u (exchangeable runs, 20,000 draws)", () => {
    const random = mulberry32(3);
    const draw = () => Math.exp((random() + random() + random() - 1.5) * 0.2);
    for (const u of [0.05, 0.1, 0.25]) {
      let hits = 0;
      for (let i = 0; i < 20_000; i++) {
        const ref = Array.from({ length: 19 }, draw);
        if (historyP(draw(), ref) <= u) hits += 1;
      }
      expect(hits / 20_000).toBeLessThanOrEqual(u + 0.006);
    }
  });

  it("runsNeededFor: 1 / (r + 1) <= level", () => {
    expect(runsNeededFor(0.05)).toBe(19);
    expect(runsNeededFor(0.05 / 3)).toBe(59);
    expect(1 / (runsNeededFor(0.01) + 1)).toBeLessThanOrEqual(0.01);
  });
});
