import { describe, expect, it } from "vitest";
import { formatCount, formatPercent, formatRps, formatMs } from "../../../src/render/format.js";

describe("number formatting", () => {
  it.each([
    [48.627, "+48.63%"],
    [-32.834, "-32.83%"],
    [0, "+0.00%"],
    [-0.001, "+0.00%"],
    [0.005, "+0.01%"],
    [1234.5, "+1,234.50%"],
  ])("formatPercent(%d) = %s", (value, text) => {
    expect(formatPercent(value)).toBe(text);
  });

  it.each([
    [322349.4, "322,349"],
    [99.456, "99.46"],
    [100, "100"],
  ])("formatRps(%d) = %s", (value, text) => {
    expect(formatRps(value)).toBe(text);
  });

  it("a count is whole from 100 up, even a median of two (45,239.5 requests)", () => {
    expect(formatCount(45239.5)).toBe("45,240");
    expect(formatCount(20000)).toBe("20,000");
    expect(formatCount(0.5)).toBe("0.50");
    expect(formatCount(3)).toBe("3");
  });

  it("ms have two decimals", () => {
    expect(formatMs(0.675)).toBe("0.68");
  });
});
