import { describe, expect, it } from "vitest";
import { roundOrder } from "../../src/runner/rounds.js";

const text = (slots: Array<{ cell: string; round: number }>) =>
  slots.map((s) => `${s.cell}${s.round + 1}`).join(" ");

describe("roundOrder", () => {
  it.each([
    [["A", "B"], 4, "A1 B1 B2 A2 A3 B3 B4 A4"],
    [["A", "B", "C"], 2, "A1 B1 C1 C2 B2 A2"],
    [["A"], 3, "A1 A2 A3"],
    [["A", "B"], 0, ""],
  ])("abba: %j x %i", (cells, rounds, order) => {
    expect(text(roundOrder(cells, rounds, "abba"))).toBe(order);
  });

  it("abba cancels a linear drift: over two rounds every cell's mean position is the same", () => {
    const cells = ["A", "B", "C", "D"];
    const slots = roundOrder(cells, 2, "abba");
    const mean = (c: string) =>
      slots
        .map((s, i) => (s.cell === c ? i : -1))
        .filter((i) => i >= 0)
        .reduce((a, b) => a + b, 0) / 2;
    expect(new Set(cells.map(mean)).size).toBe(1);
  });

  it("random: every cell once per round, the same order for the same seed, another for another", () => {
    const cells = ["A", "B", "C", "D", "E"];
    const one = roundOrder(cells, 6, "random", 42);
    for (let r = 0; r < 6; r++) {
      expect(
        one
          .filter((s) => s.round === r)
          .map((s) => s.cell)
          .sort(),
      ).toEqual(cells);
    }
    expect(text(roundOrder(cells, 6, "random", 42))).toBe(text(one));
    expect(text(roundOrder(cells, 6, "random", 43))).not.toBe(text(one));
  });
});
