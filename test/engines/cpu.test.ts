import { describe, expect, it } from "vitest";
import { coresUsed } from "../../src/engines/cpu.js";

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
