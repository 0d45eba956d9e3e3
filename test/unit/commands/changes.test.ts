import { describe, expect, it } from "vitest";
import { changesSettings } from "../../../src/commands/changes.js";

describe("proxybench changes: its flags", () => {
  it("defaults: Otava's p-value threshold, a 3% change, markdown to stdout, no failing", () => {
    expect(changesSettings("data.js", {})).toEqual({
      file: "data.js",
      maxPValue: 0.001,
      minChangePct: 3,
      format: "markdown",
      failOnRegression: false,
    });
  });

  it("takes every flag", () => {
    const flags = { maxP: "0.01", minChange: "5", format: "json", outFile: "c.json", failOnRegression: true };
    expect(changesSettings("d.js", flags)).toEqual({
      file: "d.js",
      maxPValue: 0.01,
      minChangePct: 5,
      format: "json",
      out: "c.json",
      failOnRegression: true,
    });
  });

  it.each([
    [{ maxP: "0" }, "--max-p: expected a number between 0 and 1, got '0'"],
    [{ maxP: "x" }, "--max-p: expected a number between 0 and 1, got 'x'"],
    [{ minChange: "-2" }, "--min-change: expected a percentage >= 0, got '-2'"],
    [{ format: "html" }, "--format: expected one of markdown, json, got 'html'"],
  ])("refuses %j, naming the flag", (flags, message) => {
    expect(() => changesSettings("data.js", flags)).toThrow(message);
  });
});
