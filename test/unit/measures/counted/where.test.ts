import { describe, expect, it } from "vitest";
import { renderCountedComparison } from "../../../../src/measures/counted/compare-markdown.js";
import type { CountedComparison } from "../../../../src/measures/counted/compare.js";
import {
  insideResults,
  largestChanges,
  type FunctionPerRequest,
} from "../../../../src/measures/counted/where.js";

const map = (entries: Array<[string, number, number]>) =>
  new Map<string, FunctionPerRequest>(
    entries.map(([n, self, inclusive]) => [n, { self, inclusive, object: "nginx" }]),
  );

describe("largestChanges", () => {
  const base = map([
    ["a", 100, 1000],
    ["b", 50, 50],
    ["gone", 30, 30],
    ["same", 10, 10],
  ]);
  const head = map([
    ["a", 100, 1200],
    ["b", 45, 45],
    ["new", 80, 80],
    ["same", 10, 10],
  ]);

  it("orders by the size of the change, either sign, and leaves out what did not change", () => {
    const self = largestChanges(base, head, "self");
    expect(self.map((c) => [c.name, c.delta])).toEqual([
      ["new", 80],
      ["gone", -30],
      ["b", -5],
    ]);
    const inclusive = largestChanges(base, head, "inclusive");
    expect(inclusive[0]).toEqual({ name: "a", object: "nginx", base: 1000, head: 1200, delta: 200 });
  });

  it("keeps the top N", () => {
    expect(largestChanges(base, head, "self", 2)).toHaveLength(2);
  });
});

describe("renderCountedComparison", () => {
  const comparison: CountedComparison = {
    floorPct: 0.5,
    spreadFactor: 3,
    cells: [
      {
        id: "passthrough/<b>nginx</b>",
        metrics: [
          {
            label: "Instructions/request",
            baseN: 5,
            headN: 5,
            baseMedian: 20000,
            headMedian: 20300,
            changePct: 1.5,
            spreadPct: 0.001,
            verdict: "more-work",
          },
        ],
        where: {
          self: [{ name: "ngx_http_script_copy_code", object: "nginx", base: 80, head: 152, delta: 72 }],
          inclusive: [],
        },
      },
    ],
    notCompared: [{ id: "passthrough/haproxy", why: "only in base" }],
  };
  const md = renderCountedComparison(comparison);

  it("says the rule, the verdict and where it went in a collapsed block", () => {
    expect(md).toMatch(
      /^## proxybench compare \(instructions\): 1 more work, 0 less work, 0 unchanged, 0 inconclusive/,
    );
    expect(md).toContain("exceeds both 0.5% and 3 x the spread");
    expect(md).toMatch(
      /\| Instructions\/request \| 20,000\.0 \| 20,300\.0 \| \+1\.50% \| 0\.001% \| 5 \/ 5 \| \*\*more work\*\* \|/,
    );
    expect(md).toMatch(/<details>\n<summary>Where it went: .*<\/summary>/);
    expect(md).toContain("| ngx\\_http\\_script\\_copy\\_code (nginx) | 80.0 | 152.0 | +72.0 |");
    expect(md).toContain("Inclusive (with what it calls): no function changed.");
    expect(md).toContain("- passthrough · **haproxy**: only in base");
  });

  it("escapes names", () => {
    expect(md).not.toContain("<b>");
    expect(md).toContain("&lt;b&gt;nginx&lt;/b&gt;");
  });
});

describe("callgrind files of downloaded results", () => {
  it("reads only files inside the results folder, naming the field", () => {
    expect(insideResults("/r/run", "raw/a@head-rep1.callgrind.out")).toBe(
      "/r/run/raw/a@head-rep1.callgrind.out",
    );
    for (const bad of ["../secret", "/etc/passwd", "raw/../../x", ""]) {
      expect(() => insideResults("/r/run", bad), bad).toThrow(
        /\/r\/run\/instructions\.json: callgrindFile '.*' is not inside the results folder/,
      );
    }
  });
});
