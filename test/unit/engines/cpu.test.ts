import { describe, expect, it } from "vitest";
import { coresBusySeconds, coresUsed } from "../../../src/engines/cpu.js";

describe("coresUsed", () => {
  const steady = Array.from({ length: 11 }, (_, i) => ({ t: i, cpuS: i * 0.5 }));
  it.each([
    { name: "no samples", samples: [], expected: undefined },
    { name: "one sample", samples: [{ t: 0, cpuS: 1 }], expected: undefined },
    {
      name: "no elapsed time",
      samples: [
        { t: 1, cpuS: 0 },
        { t: 1, cpuS: 1 },
      ],
      expected: undefined,
    },
    { name: "a steady half core", samples: steady, expected: 0.5 },
    {
      name: "start-up and the end are left out",
      samples: [
        { t: 0, cpuS: 0 },
        { t: 1, cpuS: 0.9 }, // start-up burst
        ...Array.from({ length: 9 }, (_, i) => ({ t: 2 + i, cpuS: 0.9 + (i + 1) * 0.25 })),
        { t: 11, cpuS: 3.15 },
      ],
      expected: 0.25,
    },
    {
      name: "two samples only",
      samples: [
        { t: 0, cpuS: 0 },
        { t: 2, cpuS: 1.5 },
      ],
      expected: 0.75,
    },
  ])("$name", ({ samples, expected }) => {
    const got = coresUsed(samples);
    if (expected === undefined) expect(got).toBeUndefined();
    else expect(got).toBeCloseTo(expected, 9);
  });
});

describe("coresBusySeconds", () => {
  // A real /proc/stat head from the development machine.
  const stat = [
    "cpu  123772 52 30690 111492 417 0 3678 555 0 0",
    "cpu0 61265 39 14875 57147 48 0 1682 272 0 0",
    "cpu1 62506 13 15815 54344 368 0 1995 282 0 0",
    "intr 1 2 3",
  ].join("\n");
  it.each([
    { cores: [0], expected: (61265 + 39 + 14875 + 0 + 1682 + 272) / 100 },
    { cores: [1], expected: (62506 + 13 + 15815 + 0 + 1995 + 282) / 100 },
    { cores: [0, 1], expected: (61265 + 39 + 14875 + 1682 + 272 + 62506 + 13 + 15815 + 1995 + 282) / 100 },
    { cores: [2], expected: undefined },
    { cores: [], expected: 0 },
  ])("cores $cores", ({ cores, expected }) => {
    const got = coresBusySeconds(stat, cores);
    if (expected === undefined) expect(got).toBeUndefined();
    else expect(got).toBeCloseTo(expected, 9);
  });
});
