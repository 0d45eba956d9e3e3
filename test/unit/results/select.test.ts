import { describe, expect, it } from "vitest";
import { selectVariant } from "../../../src/results/select.js";
import { cell, results } from "../../support/report/build.js";

const reps = [{ rps: 100, p50: 5 }];
const run = results([cell("nginx", reps, { variant: "base" }), cell("nginx", reps, { variant: "head" })]);
run.settings.variants = [
  { name: "base", dir: "/b" },
  { name: "head", dir: "/h" },
];

describe("selectVariant", () => {
  it("keeps one variant's cells, ids without the variant", () => {
    const head = selectVariant(run, "head");
    expect(head.cells.map((c) => [c.id, c.variant])).toEqual([["small/default/nginx/k6", undefined]]);
    expect(run.cells).toHaveLength(2);
  });

  it("returns a run without variants as it is, whatever the name", () => {
    const plain = results([cell("nginx", reps)]);
    expect(selectVariant(plain, "head")).toBe(plain);
  });

  it("asks for a name, and names the variants it has", () => {
    expect(() => selectVariant(run, undefined)).toThrow(
      "--variant: this run holds the variants base, head: name the one to use",
    );
    expect(() => selectVariant(run, "pr")).toThrow(
      "--variant: no variant 'pr' in this run (its variants: base, head)",
    );
  });
});
