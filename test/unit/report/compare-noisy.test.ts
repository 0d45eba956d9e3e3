import { describe, expect, it } from "vitest";
import { compareResults, compareVariants } from "../../../src/report/compare.js";
import { renderComparisonMarkdown } from "../../../src/report/compare-markdown.js";
import type { Cell, Results } from "../../../src/results/schema.js";
import { pairedTwins } from "../../../src/stats/tested-metrics.js";
import { cell, pairedRun } from "../../support/report/build.js";

// A repetition still noisy after its tries (other processes' CPU on the benchmark's cores) in a
// paired comparison: its round is left out of every test of its cell, and the cell's other rounds
// are compared. One such round used to make the whole cell `noisy` and leave it out.

const ROUNDS = 12;
const NOISY_REASON =
  "1.25 core used by other processes on the benchmark's cores (limit 0.05), still after 2 more tries";

/** A cell of `ROUNDS` repetitions, CPU/request `cpu` (a little jitter); `noisy` rounds marked so. */
function side(variant: string, cpu: number, noisy: (round: number) => boolean): Cell {
  const c = cell(
    "nginx",
    Array.from({ length: ROUNDS }, () => ({ rps: 1000, p50: 1 })),
    { variant },
  );
  c.repetitions = c.repetitions.map((r, i) => {
    const cpuPerRequestUs = (noisy(i) ? 3 * cpu : cpu) * (1 + ((i % 3) - 1) * 0.01);
    const cpuS = (cpuPerRequestUs * 10_000) / 1e6;
    return {
      ...r,
      ...(noisy(i) ? { status: "noisy" as const, reasons: [NOISY_REASON] } : {}),
      noise: { otherCpu: noisy(i) ? 1.25 : 0, steal: 0 },
      proxyCost: { source: "proc", cpuS, idleCpuS: 0, windowS: 10, cpuPerRequestUs, peakMemoryMiB: 12 },
    };
  });
  const anyNoisy = c.repetitions.some((r) => r.status === "noisy");
  return { ...c, status: anyNoisy ? "noisy" : "ok", reasons: anyNoisy ? [NOISY_REASON] : [] };
}

function run(headNoisy: (round: number) => boolean): Results {
  return pairedRun([side("base", 40, () => false), side("head", 52, headNoisy)], ["cpuPerRequest", "p99"]);
}

describe("a repetition noisy after its tries, in a paired comparison", () => {
  it("leaves its round out of every test of its cell, and compares the other rounds", () => {
    const c = compareVariants(run((i) => i === 5));
    expect(c.notCompared).toEqual([]);
    const metrics = c.cells[0]!.metrics;
    expect(metrics.map((m) => [m.metric, m.n, m.noisyRounds])).toEqual([
      ["p99", ROUNDS - 1, 1],
      ["cpuPerRequest", ROUNDS - 1, 1],
    ]);
    const cpu = metrics.find((m) => m.metric === "cpuPerRequest")!;
    expect(cpu.verdict).toBe("regressed");
    // the noisy round's tripled CPU is not in the figures
    expect(cpu.head.values.every((v) => v < 60)).toBe(true);
    expect(cpu.why).toContain(
      "1 of 12 rounds left out: noisy (other processes' CPU on the benchmark's cores, still after its tries)",
    );
    expect(c.notes).toContain(
      "Rounds where a side's repetition stayed noisy after its tries (other processes' CPU on the benchmark's cores) were left out of every test of their cell, its other rounds compared: small/default/nginx/k6 (1 of 12 rounds).",
    );
    expect(renderComparisonMarkdown(c)).toMatch(
      /Proxy CPU\/request \(µs\) .*\| \*\*regressed\*\* \(1 round left out: noisy\) +\|/,
    );
  });

  it("names the cell in its note escaped: a hostile proxy name reaches the comment as text", () => {
    const r = run((i) => i === 5);
    const evil = "@octocat <img src=x onerror=alert(1)> [x](https://evil.example)";
    const cells = r.cells.map((c) => ({ ...c, proxy: evil, id: c.id.replace("nginx", evil) }));
    const md = renderComparisonMarkdown(compareVariants({ ...r, cells }));
    const note = md.split("\n").find((l) => l.includes("stayed noisy"))!;
    expect(note).toContain("1 of 12 rounds");
    expect(note).toContain("octocat");
    expect(note).not.toContain("<img");
    expect(note).not.toContain("@octocat");
    expect(note).not.toContain("](https://evil.example)");
  });

  it("a side noisy on every round is not compared, and says why", () => {
    const c = compareVariants(run(() => true));
    expect(c.cells).toEqual([]);
    expect(c.notCompared.map((n) => n.reason)).toEqual([`head is noisy (${NOISY_REASON})`]);
  });

  it("the runner's stopping rule leaves out the same rounds", () => {
    const [base, head] = run((i) => i === 2 || i === 7).cells as [Cell, Cell];
    const members = pairedTwins(base, head, 0, ["cpuPerRequest", "p99"]);
    expect(members.map((m) => m.pairs.length)).toEqual([ROUNDS - 2, ROUNDS - 2]);
  });

  it("unpaired runs (made at different times) still leave a noisy cell out", () => {
    const head = run((i) => i === 5);
    const base = { ...head, cells: [head.cells[0]!] };
    const only = { ...head, cells: [{ ...head.cells[1]!, id: head.cells[0]!.id, variant: "base" }] };
    const c = compareResults(base, only);
    expect(c.cells).toEqual([]);
    expect(c.notCompared[0]!.reason).toContain("head is noisy");
  });
});
