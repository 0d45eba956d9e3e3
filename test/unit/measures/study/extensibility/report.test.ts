import { describe, expect, it } from "vitest";
import { renderLatencyTableMarkdown } from "../../../../../src/report/markdown.js";
import { renderVerdicts, testGroup } from "../../../../../src/measures/study/extensibility/report.js";
import { cell, results, type RepSpec } from "../../../../support/report/build.js";

/** Rounds whose p50 wobbles by a few tenths of a percent around `p50`, the same for every side. */
function rounds(n: number, p50: number, factor = 1): RepSpec[] {
  return Array.from({ length: n }, (_, i) => ({ rps: 100, p50: p50 * factor * (1 + ((i % 3) - 1) * 0.003) }));
}

function variantRun(n: number, options: Record<string, number>) {
  return results([
    cell("nginx", rounds(n, 1), { variant: "baseline", scenario: "static-header" }),
    ...Object.entries(options).map(([name, factor]) =>
      cell("nginx", rounds(n, 1, factor), { variant: name, scenario: "static-header" }),
    ),
  ]);
}

/** The verdict table's row of one option, as its cells. */
function row(text: string, option: string): string[] {
  const line = text.split("\n").find((l) => l.startsWith(`| ${option} `));
  if (line === undefined) throw new Error(`no row for ${option} in:\n${text}`);
  return line
    .split("|")
    .slice(1, -1)
    .map((c) => c.trim());
}

describe("extensibility report: each option against the baseline", () => {
  it("a coprocessor 40% slower is regressed, configuration as fast is unchanged (12 rounds)", () => {
    const text = renderVerdicts(variantRun(12, { config: 1, go: 1.4 }), ["config", "go"]).join("\n\n");
    expect(text).toContain("paired by round (12 rounds");
    expect(text).toContain("at most 0.05 chance of any false verdict in this table");
    expect(row(text, "config")).toEqual([
      "config",
      "+0.00% unchanged",
      "+0.00% unchanged",
      "+0.00% unchanged",
    ]);
    expect(row(text, "go")).toEqual(["go", "+40.00% regressed", "+40.00% regressed", "+40.00% regressed"]);
  });

  it("three rounds cannot decide: inconclusive, and the note says how many rounds would", () => {
    const parts = renderVerdicts(variantRun(3, { go: 1.4, node: 1.6, python: 1.5 }), [
      "go",
      "node",
      "python",
    ]);
    const text = parts.join("\n\n");
    expect(row(text, "go")[2]).toBe("+40.00% inconclusive");
    expect(text).toMatch(
      /> With 3 rounds no interval at .* exists \(4 tests at alpha 0\.017\): .* Run \d+ or more rounds \(--repetitions \d+\)/,
    );
  });

  it("the false-alarm rate is shared by the options: more options, a stricter test each", () => {
    // Eight rounds all 6% slower: enough for one option (family of 4 tests), not for seven (28).
    const one = renderVerdicts(variantRun(8, { go: 1.06 }), ["go"]).join("\n");
    const seven = { config: 1, script: 1, go: 1.06, node: 1, python: 1, java: 1, rust: 1 };
    const many = renderVerdicts(variantRun(8, seven), Object.keys(seven)).join("\n");
    expect(row(one, "go")[2]).toBe("+6.00% regressed");
    expect(row(many, "go")[2]).toMatch(/^\+6\.00% inconclusive/);
  });

  it("an option that was not measured ok is named with its reason, without figures", () => {
    const run = results([
      cell("nginx", rounds(10, 1), { variant: "baseline", scenario: "static-header" }),
      cell("nginx", rounds(10, 1.4), {
        variant: "node",
        scenario: "static-header",
        status: "invalid",
        reasons: ["120 responses without the header source: node"],
      }),
    ]);
    const cells = row(renderVerdicts(run, ["node"]).join("\n"), "node");
    expect(cells[1]).toMatch(/^not compared: .*invalid/);
    expect(cells.join(" ")).not.toMatch(/%/);
  });

  it("the latency table: each option's delta with its interval, ~ where the noise allows it", () => {
    const run = { test: "static-header", gateway: "nginx", options: ["config", "go"], skipped: [] };
    const group = testGroup({ ...run, results: variantRun(10, { config: 1, go: 1.4 }) });
    const table = renderLatencyTableMarkdown(group, "Type");
    const deltas = (option: string) =>
      row(table, option)
        .slice(2, -1) // Min and Max: shown, never compared
        .map((c) => c.split("<br>")[1]);
    expect(deltas("config")).toHaveLength(5);
    for (const d of deltas("config"))
      expect(d).toMatch(/^\(~ [+-]\d+\.\d\d; [+-]\d+\.\d\d to [+-]\d+\.\d\d\)$/);
    for (const d of deltas("go")) expect(d).toMatch(/^\(\+\d+\.\d\d; \+\d+\.\d\d to \+\d+\.\d\d\)$/);
    expect(group.noise).toMatchObject({ tests: 12, rounds: 10, roundsNeeded: 9 });
  });

  it("nothing measured: no verdict section at all", () => {
    expect(renderVerdicts(variantRun(3, {}), ["go"])).toEqual([]);
  });
});
