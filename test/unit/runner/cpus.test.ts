import { describe, expect, it } from "vitest";
import { formatCores } from "../../../src/environment/tuning.js";
import {
  defaultCpuLayout,
  formatCpuLayout,
  layoutWarnings,
  parseCpuLayout,
} from "../../../src/runner/cpus.js";

describe("parseCpuLayout", () => {
  it.each([
    ["loadgen=0,proxy=1,upstream=1", 2, { loadgen: [0], proxy: [1], upstream: [1] }],
    ["loadgen=0-1,proxy=2,upstream=3", 4, { loadgen: [0, 1], proxy: [2], upstream: [3] }],
    ["upstream=3, proxy=2 ,loadgen=0+1", 4, { loadgen: [0, 1], proxy: [2], upstream: [3] }],
    ["loadgen=0-2+5,proxy=3,upstream=4", 8, { loadgen: [0, 1, 2, 5], proxy: [3], upstream: [4] }],
    ["loadgen=1+0+1,proxy=0,upstream=0", 2, { loadgen: [0, 1], proxy: [0], upstream: [0] }],
  ])("%s on %i cores", (text, cores, expected) => {
    expect(parseCpuLayout(text, cores)).toEqual(expected);
  });

  it.each([
    ["loadgen=0,proxy=1", 2, "--cpus: missing upstream"],
    [
      "loadgen=0,proxy=1,upstream=2",
      2,
      "--cpus: upstream: core 2 does not exist (this machine has cores 0-1)",
    ],
    ["loadgen=0,proxy=1,upstream=1,db=1", 2, "--cpus: unknown role 'db'"],
    ["loadgen=0,loadgen=1,proxy=1,upstream=1", 2, "--cpus: role 'loadgen' is given twice"],
    ["loadgen:0,proxy=1,upstream=1", 2, "--cpus: 'loadgen:0' is not role=cores"],
    ["loadgen=a,proxy=1,upstream=1", 2, "--cpus: loadgen: 'a' is not a core"],
    ["loadgen=3-1,proxy=1,upstream=1", 4, "--cpus: loadgen: range '3-1' goes backwards"],
    ["loadgen=,proxy=1,upstream=1", 2, "--cpus: loadgen: no cores given"],
  ])("%s on %i cores: %s", (text, cores, error) => {
    expect(() => parseCpuLayout(text, cores)).toThrow(error);
  });
});

describe("defaultCpuLayout", () => {
  it.each([
    [1, "loadgen=0,proxy=0,upstream=0", 1],
    [2, "loadgen=0,proxy=1,upstream=1", 0],
    [3, "loadgen=0,proxy=1,upstream=2", 0],
    [4, "loadgen=0-1,proxy=2,upstream=3", 0],
    [6, "loadgen=0-2,proxy=3-4,upstream=5", 0],
    [8, "loadgen=0-3,proxy=4-5,upstream=6-7", 0],
    [16, "loadgen=0-7,proxy=8-11,upstream=12-15", 0],
  ])("%i cores: %s", (cores, expected, warnings) => {
    const d = defaultCpuLayout(cores);
    expect(formatCpuLayout(d.layout)).toBe(expected);
    expect(d.warnings).toHaveLength(warnings);
    // What is printed parses back to the same layout.
    expect(parseCpuLayout(expected, cores)).toEqual(d.layout);
  });
});

describe("formatCores and warnings", () => {
  it.each([
    [[0], "0"],
    [[0, 1, 2], "0-2"],
    [[5, 0, 1], "0-1+5"],
    [[1, 3, 5], "1+3+5"],
  ])("%j -> %s", (cores, text) => {
    expect(formatCores(cores)).toBe(text);
  });

  it("warns when the load generator shares a core with the proxy", () => {
    expect(layoutWarnings({ loadgen: [0, 1], proxy: [1], upstream: [1] })[0]).toMatch(/share core 1/);
    expect(layoutWarnings({ loadgen: [0], proxy: [1], upstream: [1] })).toEqual([]);
  });
});
